// DESIGN.md's XS quirk: a static field that instantiates the class while the class has instance fields
let result;
try {
  class Point {
    x = 1;
    y = 2;
    static ORIGIN = new Point();
  }
  result = "no quirk: " + Point.ORIGIN.x + "," + Point.ORIGIN.y;
} catch (e) {
  result = "quirk: " + e;
}
__sim.print(result);
