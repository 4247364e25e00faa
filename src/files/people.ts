// Who a person is, as the file store needs it: their role. The people and
// roles subsystem (src/people, the chat issue) implements this and hands it
// over with files.setPeople(); until then the device owner (person null)
// is an admin and everyone else a user. Rules that follow from the role:
// 'unknown' (revoked) sees and saves nothing, 'guest' cannot share.

import type { Role } from '../memory/index.ts';

export type { Role };

export interface FilePeople {
  roleOf(person: string | null): Role;
}

export const DEFAULT_FILE_PEOPLE: FilePeople = {
  roleOf: (person) => (person === null ? 'admin' : 'user'),
};
