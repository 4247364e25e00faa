// The tool server's face: /mcp serves the kernel's tool registry, and what
// other subsystems hand it through its options: resources (the documentation
// pack, the caller's text files) and prompts (the approved skill capsules),
// written against src/contracts/mcp-sources.ts; in test builds also the
// conformance suite's fixtures (src/mcp/fixtures.ts). Routes: src/mcp/routes.ts.

import type { PromptProvider, ResourceProvider } from '../contracts/index.ts';
import type { Subsystem } from '../core/subsystem.ts';
import { fixturePrompts, fixtureResources, fixtureTools } from './fixtures.ts';
import { PromptRegistry } from './prompts.ts';
import { ResourceRegistry } from './resources.ts';
import { mcpRoutes } from './routes.ts';
import { MCP_CALLER, McpServer } from './server.ts';


const INSTRUCTIONS =
  'Tools of a desk assistant device. Tool names are dotted (device.status). A tool that runs and fails answers ' +
  'with isError true; structuredContent always carries the uniform result {success, output, error, error_type}. ' +
  'docs.search and docs.read answer questions about the device from its documentation, which is also readable as ' +
  'docs:// resources; saved text files are artifact:// resources, and approved skill capsules are prompts.';

/** What /mcp serves besides the tool registry, in the order it lists them. */
export interface McpOptions {
  /** The documentation's resources (src/docs/; none when the image carries no pack). */
  docResources?: ResourceProvider[];
  /** The file store's resources (src/files/). */
  fileResources?: ResourceProvider[];
  /** The skills' prompts (src/skills/). */
  skillPrompts?: PromptProvider;
}

export const mcp: Subsystem<McpOptions, McpServer> = {
  name: 'mcp',
  needs: ['docResources', 'fileResources', 'skillPrompts'],
  provides: {},
  start(k, o) {
    const resources = new ResourceRegistry((m) => k.log.error('mcp', m));
    const prompts = new PromptRegistry();
    // Test builds only (never a release image): the conformance suite's fixtures, through the same registries.
    const test = k.hal.build.testBuild;
    if (test) {
      resources.register(fixtureResources());
      prompts.register(fixturePrompts());
    }
    for (const r of [...(o.docResources ?? []), ...(o.fileResources ?? [])]) resources.register(r);
    if (o.skillPrompts) prompts.register(o.skillPrompts);
    const server = new McpServer(
      k.tools,
      { name: 'desk-assistant', title: 'Desk assistant', version: k.hal.build.version },
      () => MCP_CALLER,
      INSTRUCTIONS,
      { resources, prompts, clock: k.hal.clock, random: (b) => k.hal.system.random(b) },
    );
    return { provides: server, routes: mcpRoutes(server, k.tools), tools: test ? fixtureTools(k.hal.clock) : [] };
  },
};
