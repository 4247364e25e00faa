// The fabric's console commands (test builds): SESSIONS? lists the queue,
// the running and recent jobs and the stored results; SESSIONMSG? the
// messages the fabric sent (completions, failures, synthesis replies).

import type { Command } from '../core/console.ts';
import { jobLine } from './blocks.ts';
import type { Fabric } from './fabric.ts';
import type { ResultStore } from './results.ts';
import { capChars, oneLine } from './text.ts';

export function fabricCommands(d: { fabric: Fabric; results: ResultStore }): Command[] {
  const { fabric, results } = d;
  return [
    {
      verb: 'SESSIONS?',
      help: 'sub-agents: queue, in-flight and recent jobs, stored results',
      run: (c) => {
        c.out(`queued=${fabric.queued()} inflight=${fabric.inFlight()} capacity=${fabric.capacity()} deferrals=${fabric.deferrals}`);
        fabric.pending(null).forEach((p, i) => c.out(`queued ${p.tag} [${p.name || p.tag}] #${i + 1} chat=${p.chat}`));
        for (const j of fabric.running(null)) c.out(`job ${jobLine(j)} polls=${j.polls} chat=${j.chat}`);
        for (const j of fabric.recent(null)) c.out(`ended ${jobLine(j)} chat=${j.chat}`);
        for (const r of results.list(null)) c.out(`result ${r.tag} ${r.kind} [${r.name}] ${r.size} bytes${r.fresh ? ' fresh' : ''}`);
      },
    },
    {
      verb: 'SESSIONMSG?',
      help: 'the messages the sub-agent fabric sent to chats, newest first',
      run: (c) => {
        for (const m of fabric.messages()) c.out(`${m.chat}: ${capChars(oneLine(m.text), 200).text}`);
      },
    },
  ];
}
