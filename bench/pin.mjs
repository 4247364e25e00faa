// Single-core figures are measured on one pinned core: left to the scheduler,
// a run of the XS runtime or of openssl on these 2-core machines lands, whole,
// at about 60% or 100% of the core's speed (measured: SHA-256 on XS 210-260 or
// 380-405 MB/s from run to run, 380-405 every time when pinned), which makes a
// single run's figure a coin toss. Pinned with taskset (util-linux) when the
// machine has it; otherwise the command runs as it is.
import { execFileSync } from 'node:child_process';
import { cpus } from 'node:os';

let taskset = null;
try {
  execFileSync('taskset', ['-V'], { stdio: 'ignore' });
  taskset = 'taskset';
} catch {
  taskset = null;
}

/** [command, args] that run cmd with args on the machine's last core. */
export function onOneCore(cmd, args) {
  return taskset ? [taskset, ['-c', String(cpus().length - 1), cmd, ...args]] : [cmd, args];
}
