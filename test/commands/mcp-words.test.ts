/** The words an agent reads in the tool catalogue: nothing that only makes sense at a command line. */
import { expect, it } from 'vitest';
import { buildCatalogue, TOOLSETS } from '../../src/commands/mcp/catalogue.js';
import { manifest } from '../../src/commands/manifest.js';

it('no tool or input description speaks of shell scripts, --help examples, saved plans, plan merge, stdout/stderr, a terminal\'s progress or a tool that does not exist', async () => {
  const all = Object.keys(TOOLSETS);
  const tools = await buildCatalogue(manifest, { toolsets: all, allowWrite: all });
  const terminalOnly = /&&|last example|saved plan|plan merge|progress at a terminal|\bstderr\b|\bstdout\b|prints nothing|forgectl_/;
  const found: string[] = [];
  for (const tool of tools) {
    const texts = [['', tool.description], ...Object.entries(tool.inputSchema.properties ?? {}).map(([name, schema]) => [`.${name}`, String(schema.description ?? '')])];
    for (const [name, text] of texts) if (terminalOnly.test(text)) found.push(`${tool.name}${name}: ${text}`);
  }
  expect(found).toEqual([]);
  expect(tools.find((tool) => tool.name === 'tokens_rotate')!.description).toContain('Exit 10: rotated but not saved everywhere (the notice names what was and was not updated, and the recovery file). Exit 9');
  const plan = tools.find((tool) => tool.name === 'plan')!.description;
  expect(plan).toMatch(/Exit 0 when everything matches, 9 when anything differs \(drift: for cron and CI\), 2 for an invalid file\. /);
  expect(tools.find((tool) => tool.name === 'apply')!.description).toMatch(/^Make the instance match a desired-state file: carries out a plan made by the plan tool/);
  expect(tools.find((tool) => tool.name === 'push_rule_get')!.description).toMatch(/A project without a push rule returns nothing and says so in the notice\./);
});
