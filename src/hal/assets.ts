// Read-only data that ships in the firmware image beside the code (the
// offline embedding table, fonts): the device reads it in place from flash
// (a Moddable resource), the simulator from a mapped file, the unit tests
// from a buffer. A view is never written to.

export interface Assets {
  /** The bytes of one asset (a view that must not be written), or null when the image has none of that name. */
  get(name: string): Uint8Array | null;
  /** Names of the assets in the image. */
  names(): string[];
}
