// What a stored file is (its metadata, kept beside it on the card), the card
// as the store sees it, and the one error the store throws, its code the
// answer the spec names.

import type { CardState } from '../storage/index.ts';

export type FilesErrorCode =
  | 'no-card'
  | 'unsupported'
  | 'not-found'
  | 'bad-input'
  | 'name-taken'
  | 'quota'
  | 'card-full'
  | 'card-removed'
  | 'forbidden'
  | 'too-large'
  | 'not-text'
  | 'io';

export class FilesError extends Error {
  constructor(
    readonly code: FilesErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export interface FileMeta {
  project: string;
  name: string;
  kind: string;
  size: number;
  /** Wall-clock ms of the first save. */
  created: number;
  /** The provider's id for this file when it was uploaded to one (null: none). */
  providerFileId: string | null;
  /** The person's chat id (null: the device owner). */
  owner: string | null;
  share: boolean;
  /** The URL a download came from (absent: made on the device); its text is fetched content (the injection screen). */
  source?: string;
}

/** The card as the store needs it (src/storage/card.ts). */
export interface CardView {
  get(): CardState;
  live(): boolean;
  probe(): CardState;
}
