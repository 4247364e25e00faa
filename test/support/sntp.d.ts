// Types for the npm `sntp` client (a devDependency that ships none): what
// test/e2e/clock.test.ts uses of its lib/index.js.
declare module 'sntp' {
  export interface SntpMessage {
    /** The local clock's offset from the server's, in ms. */
    t: number;
    /** The round trip, in ms. */
    d: number;
    stratum: 'death' | 'primary' | 'secondary' | 'reserved';
    isValid: boolean;
  }
  const Sntp: {
    time(options?: { host?: string; port?: number; timeout?: number }): Promise<SntpMessage>;
  };
  export default Sntp;
}
