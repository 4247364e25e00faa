// timers fire in due order, ties in the order they were set; promise jobs run after each
const log = [];
__sim.setTimer(30, false, () => log.push("t30"));
__sim.setTimer(10, false, () => {
  log.push("t10");
  Promise.resolve().then(() => log.push("t10.job"));
});
__sim.setTimer(10, false, () => log.push("t10b"));
__sim.setTimer(0, false, () => log.push("t0"));
const cleared = __sim.setTimer(5, false, () => log.push("cleared!"));
__sim.clearTimer(cleared);
Promise.resolve().then(() => log.push("job0"));
let n = 0;
const rep = __sim.setTimer(2, true, () => {
  n++;
  log.push("rep" + n);
  if (n === 3) __sim.clearTimer(rep);
});
__sim.setTimer(50, false, () => {
  __sim.print(log.join(" "));
});
