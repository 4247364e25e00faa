// Approved skill capsules as MCP prompts (served by /mcp, src/mcp/prompts.ts):
// one prompt per capsule that is approved and readable now (the built-ins,
// and the owner's or the assistant's once the owner approved them; a
// capsule waiting for approval is never offered). Its name is the capsule
// id; getting it gives the capsule's instructions (front matter removed) as
// one user message, with the optional task argument appended.

import type { PromptInfo, PromptProvider, PromptResult } from '../contracts/index.ts';
import { parseCapsule } from './capsule.ts';
import type { SkillStore } from './store.ts';

export function skillPrompts(skills: SkillStore): PromptProvider {
  return {
    list: (): PromptInfo[] =>
      skills
        .list()
        .filter((s) => s.approved && s.available)
        .map((s) => ({
          name: s.id,
          title: s.title || s.id,
          description: `Skill capsule ${s.id}${s.title ? ` (${s.title})` : ''}: instructions the owner approved, as sub-agents receive them.`,
          arguments: [{ name: 'task', description: 'What to apply the skill to (appended after the instructions).', required: false }],
        })),
    get(name, args): PromptResult {
      const r = skills.get(name);
      if (!r.ok) throw new Error(r.message);
      if (!r.value.approved) throw new Error(`Skill ${name} is not approved.`);
      const body = parseCapsule(r.value.md).body;
      const task = args.task?.trim();
      return {
        description: r.value.title || `Skill capsule ${name}`,
        messages: [{ role: 'user', content: { type: 'text', text: task ? `${body}\n\nTask: ${task}` : body } }],
      };
    },
  };
}
