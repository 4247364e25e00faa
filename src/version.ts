// The firmware version constant. A release tag must equal it (spec,
// Versioning 1); tools/build.mjs stamps it into the image header.
export const FIRMWARE_VERSION = 'v0.1.0';
