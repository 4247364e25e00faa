import { it } from 'vitest';
import { mountMemory, testKernel } from '../../support/kernel.ts';
const FACTS = ['Anna and I got married in June 2019','The car needs new winter tyres before November','My dentist appointment is every six months','The office wifi password is written on the fridge','I am learning to play the violin on Tuesdays','Our cat Mia likes to sleep on the radiator'];
it('debug', async () => {
  const m = mountMemory(testKernel().kernel);
  for (const f of FACTS) await m.store.write({ content: f }, null);
  for (const q of ['who is my wife', 'my wife', 'which musical instrument do I practise', 'pet', 'quantum chromodynamics lecture notes', 'where is the spare key']) {
    const c = await m.store.candidates([q], null, 50);
    console.log(q, c.slice(0,3).map((x) => `${x.rec.content.slice(0, 25)} sem=${x.sem.toFixed(2)} lex=${x.lex.toFixed(2)}`));
  }
});
