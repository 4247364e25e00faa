// The skills subsystem's face: the capsule store (src/skills/store.ts), which
// the sub-agent fabric reads through its skills port (capsules for briefs, a capsule's
// provider for the provider choice); the tools skill.list and skill.get
// (open), skill.save (admin-only, refused in unattended turns) and
// skill.delete (admin-only, agent-authored only); the chat command /skill
// approve | deny <id> (a bare /skill lists those waiting); GET and POST
// /api/skills for the web page's Assistant > Skills (routes.ts); tools.ts.

import type { Kernel } from '../core/kernel.ts';
import { whole, type Later, type Subsystem } from '../core/subsystem.ts';
import type { SkillStoreDeps } from './store.ts';
import { SKILLS_NS, SkillStore } from './store.ts';
import { skillPrompts } from './prompts.ts';
import { skillRoutes } from './routes.ts';
import { skillTools } from './tools.ts';

/** What the skills need from others. */
export interface SkillsOptions {
  /** The SD card's state (src/storage/). */
  card: { live(): boolean };
  /** SHA-256 (the native hotspot or its fallback). */
  sha256: SkillStoreDeps['sha256'];
  /** Owner notices (the chat's outbox). */
  outbox: { post(key: string, text: string): unknown };
  /** The chat commands' registry (src/chat/commands.ts, mounted later: /skill is registered when it mounts). */
  commands: Later<{ register(command: { name: string; usage?: string; help: string; run(call: { argv: string[] }): string }): void }>;
}

export const skills: Subsystem<SkillsOptions, SkillStore> = {
  name: 'skills',
  needs: ['card', 'sha256', 'outbox'],
  later: ['commands'],
  provides: { skills: whole, skillPrompts: (s) => skillPrompts(s) },
  start(k: Kernel, o: SkillsOptions) {
    const { card, commands } = o;
    const skills = new SkillStore({ store: k.store(SKILLS_NS), sd: k.hal.sd, cardLive: () => card.live(), sha256: o.sha256, clock: k.hal.clock, log: k.log });
    commands.when((registry) => registry.register({
      name: '/skill',
      usage: 'approve | deny <id>',
      help: 'approve or delete a skill capsule (/skill alone lists those waiting)',
      run: (c) => {
        const [rawVerb, id] = c.argv;
        if (!rawVerb) {
          const waiting = skills.list().filter((s) => !s.approved);
          return waiting.length ? ['Skills waiting for your approval:', ...waiting.map((s) => `${s.id}${s.title ? ` "${s.title}"` : ''} (${s.bytes} bytes, by ${s.created_by}${s.available ? '' : ', not readable now'})`)].join('\n') : 'No skill waits for approval.';
        }
        const verb = rawVerb.toLowerCase();
        if ((verb !== 'approve' && verb !== 'deny') || !id || c.argv.length !== 2) return 'Usage: /skill approve | deny <id>';
        return (verb === 'approve' ? skills.approve(id) : skills.remove(id, false)).message;
      },
    }));
    return {
      provides: skills,
      tools: skillTools(skills, (key, text) => void o.outbox.post(key, text), k.hal.clock),
      routes: skillRoutes(skills, card),
      // Counts from the index alone: the snapshot never reads the card.
      status: { sections: [() => ({ skills: { stored: skills.storedCount(), pending: skills.pendingAgent() } })] },
    };
  },
};

export { skillPrompts };
