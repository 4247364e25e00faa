// Orderly shutdown: work that must be done before the device restarts or
// sleeps, whoever asks for it (the console, the danger zone, an update, a
// device action, a mode switch). main.ts wraps the HAL's reboot and
// deepSleep once, so every caller runs the hooks first. mDNS says goodbye
// here (RFC 6762 §10.1: records about to become invalid on a clean shutdown
// go out once more with TTL 0). A power cut or a crash runs nothing.

import type { System } from '../hal/index.ts';

export class ShutdownHooks {
  private readonly hooks: Array<() => void> = [];
  private running = false;

  onShutdown(hook: () => void): void {
    this.hooks.push(hook);
  }

  /** Runs every hook once; one that throws does not stop the others or the shutdown. */
  run(): void {
    if (this.running) return;
    this.running = true;
    for (const hook of this.hooks) {
      try {
        hook();
      } catch {
        // the restart goes ahead regardless
      }
    }
    this.running = false;
  }

  /** The system with reboot and deepSleep running the hooks first. */
  wrap(system: System): System {
    return {
      reboot: (reason) => {
        this.run();
        system.reboot(reason);
      },
      resetReason: () => system.resetReason(),
      heap: () => system.heap(),
      resetHeapPeak: () => system.resetHeapPeak(),
      gc: () => system.gc(),
      feedWatchdog: () => system.feedWatchdog(),
      log: (line) => system.log(line),
      random: (bytes) => system.random(bytes),
      deepSleep: (ms) => {
        this.run();
        system.deepSleep(ms);
      },
      announce: (info) => system.announce(info),
    };
  }
}
