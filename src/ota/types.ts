// The update engine's vocabulary: the spec's state values and tokens
// (Update state fields, Update check result, Update refusal and result
// tokens) as types, so every caller branches on the same words.

/** otaResult: the verdict of the last check (spec: Update check result). */
export type OtaResult = 'pending' | 'up-to-date' | 'new-version' | 'unreachable' | 'failed';

/**
 * ota: what the engine is doing. 'confirming' is a freshly installed image
 * inside its healthy window (the guard can still roll it back).
 */
export type OtaEngineState = 'idle' | 'checking' | 'downloading' | 'verifying' | 'restarting' | 'confirming';

/**
 * otaErr: why the last check or install failed. 'fetch' is the spec's
 * otaErr=fetch (feed unreachable); the others name what was rejected.
 */
export type OtaError =
  | 'fetch' // the feed could not be fetched (otaResult unreachable)
  | 'too-large' // the manifest is larger than any real one
  | 'json' // the manifest is not JSON
  | 'schema' // schema is not 1 or 2
  | 'version' // version is not vX.Y.Z
  | 'variants' // variants is missing or not an object
  | 'variant' // our variant lacks url, size, sha256 or sig, or they are malformed
  | 'sig' // our variant's signature does not verify against a compiled-in key
  | 'wrong-family' // the stored otaType belongs to the other board family
  | 'download' // the image download failed or was cut
  | 'size' // the image is not the manifest's size
  | 'flash' // the flash refused a write, the image or the boot slot
  | 'interrupted'; // a reset ended an install before it armed

/** Why an apply is refused (HTTP 409, console ERR, chat and menu wording). */
export type ApplyRefusal =
  | 'notifier' // Notifier mode never updates (spec: always 409)
  | 'busy' // a check or an install is running
  | 'confirming' // the running image is still inside its healthy window
  | 'low-heap' // below the update heap floor
  | 'up-to-date' // the last check found nothing newer (force=1 reinstalls)
  | 'need-power' // battery level below the gate
  | 'need-recalibrate'; // battery health estimate below the gate

/** Who asked for the install: same or older versions only from the web (and the test console) with force. */
export type ApplySource = 'web' | 'menu' | 'chat' | 'console' | 'auto';

export interface ApplyOptions {
  source: ApplySource;
  /** Verify without flipping. */
  dry?: boolean;
  /** Bypass the battery gate; from the web (or console), also allow the same or an older version. */
  force?: boolean;
}

/** How an install ended (or that the device is about to restart into the new image). */
export type InstallOutcome =
  | { kind: 'restarting'; version: string }
  | { kind: 'verified'; version: string } // a dry run passed
  | { kind: 'up-to-date'; version: string | null } // the fresh check found nothing to install
  | { kind: 'failed'; lastOta: string; error: OtaError | null; detail: string };

/** The spec's update state fields (state snapshot and OTA?). */
export interface OtaState {
  ota: OtaEngineState;
  otaResult: OtaResult;
  otaLatest: string | null;
  otaNotes: string | null;
  otaPct: number;
  otaErr: OtaError | null;
  otaSlot: string;
  lastOta: string | null;
  autoUpd: boolean;
}
