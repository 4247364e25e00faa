// The one place outbound TLS meets the clock: boot() wraps the HAL's Net
// with this, so every subsystem's connections (the HTTP client, the cloud
// relay) pass through it. A connection that will check a certificate
// (verify on) while the wall clock is unset waits for network time, at most
// its own connect deadline and never more than TLS_CLOCK_WAIT_MS, then
// connects for real (with that deadline afresh: the caller's deadline for
// the whole exchange still bounds it); if the clock is still unset it fails
// with ETLS and the reason (logged, and counted in the state's clock
// section). A connection that checks no certificate
// (tlsVerify=0, plain TCP) does not need the clock and is not held.

import type { Clock, ConnectOptions, Net, PendingSocket } from '../hal/index.ts';
import { TLS_CLOCK_WAIT_MS, type ClockSync } from './sync.ts';

/** A socket that exists while the clock is awaited, then stands in for the real one. */
class ClockWaitSocket implements PendingSocket {
  onData: ((chunk: Uint8Array) => void) | null = null;
  onDrain: (() => void) | null = null;
  onEnd: (() => void) | null = null;
  onClose: ((error: string | null) => void) | null = null;
  onConnect: (() => void) | null = null;
  readonly remote: string;
  private real: PendingSocket | null = null;
  private queued: Uint8Array[] = [];
  private ending = false;
  private closed = false;

  constructor(net: Net, clock: Clock, sync: ClockSync, options: ConnectOptions) {
    this.remote = `${options.host}:${options.port}`;
    const started = clock.monoMs();
    const limit = Math.min(options.timeoutMs ?? TLS_CLOCK_WAIT_MS, TLS_CLOCK_WAIT_MS);
    sync.tlsWait(1);
    void sync.whenSynced(limit).then((ok) => {
      sync.tlsWait(-1);
      if (this.closed) return;
      if (!ok) {
        this.closed = true;
        this.onClose?.(sync.tlsRefuse(options.tls?.serverName ?? options.host, clock.monoMs() - started));
        return;
      }
      // The connect gets its whole deadline from here: the wait was bounded, and the caller's own
      // deadline for the exchange (the HTTP client's, the relay's) still covers both.
      let real: PendingSocket;
      try {
        real = net.connect(options);
      } catch (e) {
        // A host that refuses at once (net.connect throws) fails the connection, as it would have unwaited.
        this.closed = true;
        this.onClose?.(`ECONN: ${e instanceof Error ? e.message : String(e)}`);
        return;
      }
      this.attach(real);
    });
  }

  private attach(real: PendingSocket): void {
    this.real = real;
    real.onConnect = () => this.onConnect?.();
    real.onData = (chunk) => this.onData?.(chunk);
    real.onDrain = () => this.onDrain?.();
    real.onEnd = () => this.onEnd?.();
    real.onClose = (error) => {
      this.closed = true;
      this.onClose?.(error);
    };
    for (const bytes of this.queued) real.write(bytes);
    this.queued = [];
    if (this.ending) real.end();
  }

  get buffered(): number {
    if (this.real) return this.real.buffered;
    let n = 0;
    for (const b of this.queued) n += b.length;
    return n;
  }

  write(bytes: Uint8Array): void {
    if (this.real) this.real.write(bytes);
    else if (!this.closed && !this.ending && bytes.length) this.queued.push(bytes.slice());
  }

  end(): void {
    if (this.real) this.real.end();
    else this.ending = true;
  }

  destroy(): void {
    if (this.real) return this.real.destroy();
    if (this.closed) return;
    this.closed = true;
    this.queued = [];
    this.onClose?.(null);
  }
}

/** The HAL's Net with certificate-checking connections held until the clock is set. */
export function gateTlsOnClock(net: Net, clock: Clock, sync: ClockSync): Net {
  return {
    listen: (port, onAccept) => net.listen(port, onAccept),
    udp: (port) => net.udp(port),
    multicast: (group, port) => net.multicast(group, port),
    connect(options: ConnectOptions): PendingSocket {
      if (!options.tls || !options.tls.verify || clock.synced()) return net.connect(options);
      return new ClockWaitSocket(net, clock, sync, options);
    },
  };
}
