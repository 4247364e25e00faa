// Types for the Moddable SDK modules the device HAL imports, for the unit
// tests that run hosts/esp32/hal over fakes of them (test/unit/hal/
// contract.test.ts). What the HAL uses of each, as the SDK's typings
// (typings/preference.d.ts, time.d.ts, timer.d.ts) declare it; the device's
// own typecheck (npm run typecheck:device) checks the HAL against the real ones.
declare module 'preference' {
  const Preference: {
    get(domain: string, key: string): boolean | number | string | ArrayBuffer | undefined;
    set(domain: string, key: string, value: boolean | number | string | ArrayBuffer): void;
    delete(domain: string, key: string): void;
    keys(domain: string): string[];
  };
  export default Preference;
}

declare module 'time' {
  const Time: {
    readonly ticks: number;
    set(seconds: number): void;
  };
  export default Time;
}

declare module 'timer' {
  interface Timer {
    readonly __timer?: never;
  }
  const Timer: {
    set(callback: () => void, ms?: number): Timer;
    repeat(callback: () => void, ms: number): Timer;
    clear(timer: Timer): void;
  };
  export default Timer;
}
