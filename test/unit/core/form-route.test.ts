// formRoute (src/core/form-route.ts): the one shape of a form route. A body
// it cannot read is a 400 that changes nothing (or no fields, where the route
// says so); a problem apply() names is a 400 bad-setting; a change is logged
// and answered with the view; JSON object bodies and query fields only where
// the route asks for them.
import { describe, expect, it } from 'vitest';
import { bodyObject, formFields, formRoute } from '../../../src/core/form-route.ts';
import type { HttpRequest, HttpResponse } from '../../../src/net/http/types.ts';
import { testKernel } from '../../support/kernel.ts';

function post(body: string, type = 'application/x-www-form-urlencoded', query = ''): HttpRequest {
  return { method: 'POST', path: '/x', query, headers: new Map([['content-type', type]]), body: new TextEncoder().encode(body), remote: 'test' };
}

async function call(route: ReturnType<typeof formRoute>, req: HttpRequest): Promise<{ status: number; json: Record<string, unknown> }> {
  const res: HttpResponse = await route.handler(req);
  return { status: res.status, json: JSON.parse(String(res.body)) as Record<string, unknown> };
}

describe('formRoute', () => {
  it('applies the fields, logs the change and answers the view; a named problem is a 400 that changed nothing', async () => {
    const { kernel } = testKernel();
    let value = 'a';
    const route = formRoute({
      path: '/x',
      bodyLimit: 512,
      apply: (f) => {
        const v = f.get('v') ?? '';
        if (!v) return 'v is empty';
        value = v;
        return null;
      },
      view: () => ({ value }),
      log: { to: kernel.log, tag: 'test', line: (f) => `v set to ${f.get('v')}` },
    });
    expect(route).toMatchObject({ method: 'POST', path: '/x', bodyLimit: 512 });
    expect(await call(route, post('v=b'))).toEqual({ status: 200, json: { value: 'b' } });
    expect(kernel.log.text()).toMatch(/test: v set to b/);
    expect(await call(route, post('v='))).toEqual({ status: 400, json: { error: 'bad-setting', message: 'V is empty. Nothing was changed.' } });
    expect(value).toBe('b');
    expect(kernel.log.text().split('v set to').length - 1).toBe(1); // the refused change was not logged
  });

  it('answers 400 bad-request for a body it cannot read, in the route\'s words when it has them, or goes on with no fields', async () => {
    let seen: Map<string, string> | null = null;
    const apply = (f: Map<string, string>): null => ((seen = f), null);
    const broken = post('--x\r\nbroken', 'multipart/form-data; boundary=x');
    expect((await call(formRoute({ path: '/x', apply }), broken)).status).toBe(400);
    expect(seen).toBeNull();
    expect(await call(formRoute({ path: '/x', apply, unreadable: 'Send a form.' }), broken)).toEqual({ status: 400, json: { error: 'bad-request', message: 'Send a form.' } });
    expect(await call(formRoute({ path: '/x', apply, unreadable: (e) => `${e}. Nothing was changed.` }), post('[1]', 'application/json'))).toEqual({ status: 200, json: {} });
    expect(await call(formRoute({ path: '/x', apply, json: true, unreadable: (e) => `${e}. Nothing was changed.` }), post('[1]', 'application/json'))).toEqual({
      status: 400,
      json: { error: 'bad-request', message: 'the body must be a JSON object. Nothing was changed.' },
    });
    expect(seen).toEqual(new Map());
    expect((await call(formRoute({ path: '/x', apply, onUnreadable: 'empty' }), broken)).status).toBe(200);
    expect(seen).toEqual(new Map());
  });

  it('reads a JSON object and the query only where the route asks', async () => {
    let seen = new Map<string, string>();
    const apply = (f: Map<string, string>): null => ((seen = new Map(f)), null);
    await call(formRoute({ path: '/x', apply }), post('{"a":"1"}', 'application/json'));
    expect(seen).toEqual(new Map());
    await call(formRoute({ path: '/x', apply, json: true }), post('{"a":"x","b":true,"c":2}', 'application/json'));
    expect(seen).toEqual(new Map([['a', 'x'], ['b', '1'], ['c', '2']]));
    expect((await call(formRoute({ path: '/x', apply, json: true }), post('[1]', 'application/json'))).json).toEqual({ error: 'bad-request', message: 'the body must be a JSON object' });
    await call(formRoute({ path: '/x', apply, json: 'scalars' }), post('{"a":"x","b":true,"c":2}', 'application/json'));
    expect(seen).toEqual(new Map([['a', 'x'], ['b', 'true'], ['c', '2']]));
    expect((await call(formRoute({ path: '/x', apply, json: 'scalars' }), post('{"a":"x","b":[1]}', 'application/json'))).json).toEqual({ error: 'bad-request', message: 'b must be a string' });
    expect(seen).toEqual(new Map([['a', 'x'], ['b', 'true'], ['c', '2']])); // the refused body applied nothing
    await call(formRoute({ path: '/x', apply, query: true }), post('a=body', undefined, 'a=query&b=query'));
    expect(seen).toEqual(new Map([['a', 'body'], ['b', 'query']]));
    expect(formFields(post('a=1&b=2'))).toMatchObject({ ok: true, fields: new Map([['a', '1'], ['b', '2']]) });
  });

  it('bodyObject: typed JSON keeps its members as they are, else a form; the media type is matched whole, parameters and case aside', () => {
    expect(bodyObject(post('{"attach":["a","b"],"n":2}', 'application/json'))).toEqual({ attach: ['a', 'b'], n: 2 });
    expect(bodyObject(post('{"n":2}', 'Application/JSON; charset=utf-8'))).toEqual({ n: 2 });
    expect(bodyObject(post('[1]', 'application/json'))).toBe('the body must be a JSON object');
    expect(bodyObject(post('a=1&b=x', 'application/x-www-form-urlencoded'))).toEqual({ a: '1', b: 'x' });
    // another media type that starts like JSON's is not read as JSON: no fields (formFields' json option agrees)
    expect(bodyObject(post('{"n":2}', 'application/json-patch+json'))).toEqual({});
    expect(formFields(post('{"n":2}', 'application/json-patch+json'), true)).toEqual({ ok: true, fields: new Map(), files: [] });
  });
});
