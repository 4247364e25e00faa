// The skills' routes (token-gated: the token holder is the owner), for the
// web page's Assistant > Skills:
//   GET  /api/skills            {skills: [...], pending, pendingMax}; ?id=<id> one capsule with md
//   POST /api/skills            action=approve|deny&id=<id>; action=save&id&md (the owner's own
//                               capsule, approved as written)

import { formRoute } from '../core/form-route.ts';
import type { Route } from '../core/router.ts';
import { queryParams } from '../net/http/body.ts';
import { errorResponse, jsonResponse } from '../net/http/errors.ts';
import { PENDING_MAX, type SkillFail, type SkillOutcome, type SkillStore } from './store.ts';

const HTTP_STATUS: Record<SkillFail, number> = { 'bad-input': 400, 'not-found': 404, reserved: 409, limit: 409, refused: 409, 'no-card': 409, storage: 500 };

export function skillRoutes(skills: SkillStore, card: { live(): boolean }): Route[] {
  return [
    {
      method: 'GET',
      path: '/api/skills',
      handler: (req) => {
        const id = queryParams(req).get('id');
        if (id !== undefined) {
          const r = skills.get(id);
          return r.ok ? jsonResponse(r.value) : errorResponse(HTTP_STATUS[r.code], r.code, r.message);
        }
        return jsonResponse({ skills: skills.list(), pending: skills.pendingAgent(), pendingMax: PENDING_MAX, card: card.live() });
      },
    },
    formRoute({
      path: '/api/skills',
      bodyLimit: 16 * 1024,
      apply: (f) => {
        const action = f.get('action') ?? '';
        const id = (f.get('id') ?? '').trim();
        if (!id) return errorResponse(400, 'bad-request', 'id names the skill.');
        let r: SkillOutcome<unknown>;
        if (action === 'approve') r = skills.approve(id);
        else if (action === 'deny') r = skills.remove(id, false);
        else if (action === 'save') r = skills.save(id, f.get('md') ?? '', 'owner');
        else return errorResponse(400, 'bad-action', 'action must be approve, deny or save.');
        if (!r.ok) return errorResponse(HTTP_STATUS[r.code], r.code, r.message);
        return jsonResponse({ id, message: r.message, ...(action === 'deny' ? { deleted: true } : { skill: r.value }) });
      },
    }),
  ];
}
