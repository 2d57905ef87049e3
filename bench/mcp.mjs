// MCP benchmark: how long `forgectl mcp serve` takes from its start to its answer to the first tools/list (the
// whole catalogue made from the command tree), over stdio, as an assistant starting it would see it. One run per
// call; time whole processes side by side with a process timer (hyperfine, /usr/bin/time), e.g.
//   node bench/mcp.mjs              forgectl mcp serve, first tools/list (default toolsets)
//   node bench/mcp.mjs all          the same with --toolsets all --allow-write all
//   node bench/mcp.mjs baseline     forgectl --version instead (the cost of starting a process of forgectl)
// Run: npm run bench:mcp (builds first, then prints the time this run measured inside the process).
import { spawn } from 'node:child_process';

const bin = process.env.FORGECTL_BIN ?? new URL('../bin/forgectl.cjs', import.meta.url).pathname;
const mode = process.argv[2] ?? 'default';
const started = process.hrtime.bigint();
const elapsed = () => Number(process.hrtime.bigint() - started) / 1e6;

if (mode === 'baseline') {
  const child = spawn(process.execPath, [bin, '--version'], { stdio: ['ignore', 'pipe', 'inherit'] });
  child.on('exit', () => console.log(`forgectl --version: ${elapsed().toFixed(0)} ms`));
} else {
  const args = [bin, 'mcp', 'serve', ...(mode === 'all' ? ['--toolsets', 'all', '--allow-write', 'all'] : [])];
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'ignore'], env: { ...process.env, FORGECTL_URL: 'http://127.0.0.1:9', FORGECTL_TOKEN: 'bench' } });
  const send = (message) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } });
  let buffer = '';
  child.stdout.on('data', (chunk) => {
    buffer += chunk;
    for (let end = buffer.indexOf('\n'); end >= 0; end = buffer.indexOf('\n')) {
      const message = JSON.parse(buffer.slice(0, end));
      buffer = buffer.slice(end + 1);
      if (message.id === 1) {
        send({ method: 'notifications/initialized' });
        send({ id: 2, method: 'tools/list', params: {} });
      } else if (message.id === 2) {
        console.log(`first tools/list: ${message.result.tools.length} tools in ${elapsed().toFixed(0)} ms`);
        child.kill();
      }
    }
  });
}
