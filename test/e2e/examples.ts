/**
 * The examples users copy: every shell line of the ```sh blocks of the README and the guides (docs/, and the help
 * topics' pages; a command's page holds its --help examples) and every `--help` example, collected so that
 * test/e2e/examples.test.ts runs them against a sandbox. An example either runs as written (exit 0, or the
 * exit it documents) or is listed in NOT_RUN with the reason it cannot run here, which the test report shows.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { manifest } from '../../src/commands/manifest.js';
import { ROOT } from './package.js';

export interface ExampleBlock {
  /** Where the examples are: "README: <heading>", "docs/<page>.md: <heading>" or "forgectl <command> --help". */
  source: string;
  /** One shell line each, run in order in one shell (variables set by one line are seen by the next). */
  lines: string[];
}

/** The README's ```sh blocks, each under the heading it follows. */
export function readmeBlocks(readme = readFileSync(join(ROOT, 'README.md'), 'utf8'), page = 'README'): ExampleBlock[] {
  const blocks: ExampleBlock[] = [];
  let heading = '';
  let inBlock: string[] | undefined;
  let fence = '';
  for (const line of readme.split('\n')) {
    if (inBlock) {
      if (line.startsWith('```')) {
        blocks.push({ source: `${page}: ${heading} (block ${blocks.filter((b) => b.source.startsWith(`${page}: ${heading} (`)).length + 1})`, lines: inBlock });
        inBlock = undefined;
      } else if (inBlock.length && inBlock[inBlock.length - 1].endsWith('\\')) {
        // A line continued with a backslash is one command, as the shell reads it.
        inBlock[inBlock.length - 1] = `${inBlock[inBlock.length - 1].slice(0, -1).trimEnd()} ${line.trim()}`;
      } else if (line.trim() && !line.trim().startsWith('#')) {
        inBlock.push(line.trim());
      }
    } else if (line.startsWith('```')) {
      // Only sh blocks are run; a # inside another block (YAML, cron) is no heading.
      if (fence) fence = '';
      else if (line.trim() === '```sh') inBlock = [];
      else fence = line;
    } else if (!fence && /^#{1,4} /.test(line)) {
      heading = line.replace(/^#+ /, '');
    }
  }
  return blocks;
}

/**
 * The pages users read besides the README: the guides of docs/ and the help topics' pages (the pages of
 * docs/commands/ that are commands hold their --help examples, which helpBlocks() gives), by path from the root.
 */
export function guidePages(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.md') && (!name.startsWith('commands/') || name.startsWith('commands/help/')));
  return docs.map((name) => join('docs', name)).sort();
}

/** The ```sh blocks of the README and of every guide page. */
export function docBlocks(): ExampleBlock[] {
  return [...readmeBlocks(), ...guidePages().flatMap((page) => readmeBlocks(readFileSync(join(ROOT, page), 'utf8'), page))];
}

/** The text of the README and of every guide page, for the tests that read a block of a kind (cron, CI jobs). */
export const docTexts = (): string[] => ['README.md', ...guidePages()].map((page) => readFileSync(join(ROOT, page), 'utf8'));

/** The examples of every command's --help, one block per command, in the order help shows them. */
export async function helpBlocks(): Promise<ExampleBlock[]> {
  const blocks: ExampleBlock[] = [];
  for (const entry of manifest) {
    const def = (await entry.load()).default;
    if (def.examples.length) blocks.push({ source: `forgectl ${entry.path} --help`, lines: [...def.examples] });
  }
  return blocks;
}

/**
 * Examples that cannot run against a sandbox on this machine, each with the reason (shown as the skip note).
 * Keyed by the example exactly as written; an entry no example matches any more fails the test, so this list
 * cannot grow stale.
 */
export const NOT_RUN: Record<string, string> = {
  'forgectl sandbox': 'serves until Ctrl-C',
  'forgectl sandbox --port 8080 --users 20000 --latency 20 --tier premium --state /tmp/sandbox.json': 'serves until Ctrl-C, on a fixed port',
  'forgectl sandbox --port 8080 --users 20000 --latency 20 --state /tmp/sandbox.json': 'serves until Ctrl-C, on a fixed port',
  'forgectl sandbox --tls --ca-out /tmp/sandbox-ca.pem': 'serves until Ctrl-C',
  'forgectl sandbox --tls --host 0.0.0.0': 'serves until Ctrl-C, on every interface',
  'forgectl sandbox --fleet 500 --rate-limit 2000/60': 'serves until Ctrl-C',
  'forgectl sandbox --fleet 500 --rate-limit 2000': 'serves until Ctrl-C',
  'forgectl sandbox --artifact-size 200MB': 'serves until Ctrl-C',
  'forgectl auth login': 'prompts for the URL and the token on a terminal',
  "printf '%s\\n' \"$TOKEN\" | forgectl auth login --profile laptop --url https://git.example.com --token-stdin --keyring": 'needs an OS keyring (a desktop session\'s Secret Service); test/e2e/keyring.test.ts runs it against one',
  'forgectl auth migrate --to keyring': 'needs an OS keyring (a desktop session\'s Secret Service); test/e2e/keyring.test.ts runs it against one',
  'forgectl mcp serve --http 127.0.0.1:8808': 'serves until Ctrl-C, on a fixed port',
  'forgectl mcp serve --http 127.0.0.1:8808 --secret-file ~/.config/forgectl/mcp.secret': 'serves until Ctrl-C, on a fixed port',
  'forgectl approvals approve --project acme/api --mr 1 --sha "$(git rev-parse HEAD)"': 'needs a clone of acme/api checked out at the merge request\'s head',
  'forgectl merge-trains add --project acme/api --mr 1 --auto-merge --squash --sha "$(git rev-parse HEAD)"': 'needs a clone of acme/api checked out at the merge request\'s head',
  'forgectl repo compare main feature --patch --project acme/api | git apply': 'needs a clone of acme/api checked out at main',
  'forgectl repo compare main feature --patch --project acme/api | git apply --check': 'needs a clone of acme/api checked out at main',
  'forgectl tokens recover ~/.config/forgectl/recovery/group-1a2b3c4d5e6f-12-2025-01-31T03-00-00-000Z.json': 'names the recovery file an interrupted rotation left',
  "forgectl draft-notes create --project acme/api --mr 1 --note 'Done.' --reply-to 6a9c1f… --resolve-discussion": 'needs the id of a discussion of the merge request',
  'npm ci': 'installs the checkout\'s dependencies (the install test runs the block)',
  'sha256sum -c --ignore-missing SHA256SUMS': 'needs a downloaded single executable: test/e2e/sea.test.ts runs the block on the one it builds',
  'install -D -m 755 forgectl-linux-x64 ~/.local/bin/forgectl': 'needs a downloaded single executable: test/e2e/sea.test.ts runs the block on the one it builds',
  'docker buildx build --platform linux/amd64,linux/arm64 -t registry.example.com/tools/forgectl:0.1.0 --push .': 'needs a container engine and a registry (test/e2e/sea.test.ts reads the Dockerfile)',
  'npm pack': 'the install test runs the block',
  'npm install -g ./forgectl-*.tgz': 'the install test runs the block',
  'npm install && npm run demo': 'the development workflow of a checkout',
  'npm install && npm test': 'the development workflow of a checkout',
  'npm install': 'the development workflow of a checkout',
  'npm test': 'the development workflow of a checkout',
  'npm run demo': 'the development workflow of a checkout',
  'npm run registries': 'the development workflow of a checkout',
  'npm run completions': 'the development workflow of a checkout',
  'npm run docs': 'the development workflow of a checkout',
  'npm run bench:startup': 'a benchmark (minutes)',
  'pass show forge/password | forgectl approvals approve --project acme/api --mr 1 --password-stdin': 'needs the password manager pass, holding the user\'s password',
  'vault read -field=key secret/license | forgectl license add --file -': 'needs a Vault server holding a license',
  'kubectl get pods -o yaml | forgectl snippets create --project acme/api --title \'pods at 3am\' --filename pods.yaml -': 'needs a Kubernetes cluster',
  './report.sh | forgectl notes create --project acme/api --issue 1 --body-file -': 'needs the user\'s own report script',
};

/** The text an example is known by in NOT_RUN, EXIT: the line without its trailing comment. */
export const exampleKey = (line: string): string => line.replace(/\s+#\s.*$/, '').trim();

const CONFIRMS = 'asks for confirmation; off a terminal, without --yes, it stops with exit 2 and sends nothing';

/** Examples that end with another exit than 0 on purpose: the exit and why. Keyed like NOT_RUN. */
export const EXIT: Record<string, { code: number; why: string }> = {
  // In plan's help desired.yaml asks for a push rule acme/api does not have; in the README it was just exported.
  'forgectl plan --help: forgectl plan -f desired.yaml': { code: 9, why: 'drift: desired.yaml asks for a push rule acme/api does not have' },
  "forgectl plan --help: forgectl plan -f desired.yaml --target 'acme/**' --exclude 'acme/sandbox/**' --concurrency 16": { code: 9, why: 'drift, as above' },
  'forgectl plan --help: forgectl plan -f desired.yaml --out plan.json': { code: 9, why: 'drift, as above' },
  'forgectl auth logout': { code: 2, why: CONFIRMS },
  'forgectl storage-move schedule --type project --id acme/web --to storage2': { code: 2, why: CONFIRMS },
  'forgectl service-accounts delete acme-release --group acme --hard-delete': { code: 2, why: CONFIRMS },
  'forgectl tokens audit --group acme --project acme/api --expiring-within 30d -o json': { code: 9, why: 'the demo\'s tokens expire within 30 days' },
  'forgectl hooks audit --group acme --recursive --desired desired.yaml --fix ssl-on,reenable --yes': { code: 9, why: 'a finding --fix does not repair: the webhook created above is not in desired.yaml' },
  'forgectl storage-move schedule --type project --from default --to storage2': { code: 2, why: CONFIRMS },
  'docs/tokens.md: Access tokens — `tokens list|get|create|rotate|revoke|audit|recover|identify` (block 1): forgectl tokens revoke 12 --project acme/api --yes': { code: 5, why: 'token 12 is one of the reader\'s instance: the demo has none of that id' },
  'forgectl settings set signup_enabled=false': { code: 2, why: CONFIRMS },
  'forgectl users offboard priya --plan-only -o json': { code: 9, why: 'the plan is not empty: priya has memberships to remove' },
  'forgectl settings set domain_allowlist=example.com,example.org restricted_visibility_levels=public': { code: 2, why: CONFIRMS },
  'forgectl settings set \'default_branch_protection_defaults={"allowed_to_push":[{"access_level":40}],"allow_force_push":false,"allowed_to_merge":[{"access_level":40}]}\'': { code: 2, why: CONFIRMS },
  'forgectl settings set external_pipeline_validation_service_token=@- < token.txt': { code: 2, why: CONFIRMS },
  'forgectl plan-limits set ci_pipeline_size=500 ci_active_jobs=200': { code: 2, why: CONFIRMS },
  'forgectl license delete 1': { code: 2, why: CONFIRMS },
  'forgectl tokens revoke 3 --personal': { code: 2, why: CONFIRMS },
  'forgectl tokens rotate self --personal --expires-in 30d --save-to-profile': { code: 2, why: CONFIRMS },
  'forgectl deploy-tokens revoke 4 --group acme': { code: 2, why: CONFIRMS },
  'forgectl runners delete 9': { code: 2, why: CONFIRMS },
  'forgectl runners reset-token 7': { code: 2, why: CONFIRMS },
  'forgectl runners prune --group acme --stale 90d': { code: 2, why: CONFIRMS },
  'forgectl runners audit --instance --stale 30d': { code: 9, why: 'the demo has runners without contact for over 30 days' },
  'forgectl runners audit --group acme --stale 90d -o json': { code: 9, why: 'the demo\'s acme-arm runner has not been seen for 100 days' },
  "printf '%s\\n' \"$MIRROR_TOKEN\" | forgectl mirror pull set --project acme/api --url https://src.example.com/x.git --auth-user mirror-bot --auth-password-stdin --enabled": { code: 2, why: CONFIRMS },
};

/**
 * Shell lines run before a block's examples, for examples that act on something the demo seed does not have
 * (a webhook, a draft note, a storage move): they make it, as the user would have before.
 */
export const SETUP: Record<string, string[]> = {};
for (const command of ['projects transfer', 'groups delete']) SETUP[`forgectl ${command} --help`] = ['forgectl groups create --name Platform --path platform --parent acme >/dev/null'];
const hook = 'forgectl hooks create --project acme/api --url https://ci.example.com/hook --events push --generate-token ./made.secret >/dev/null';
for (const command of ['get', 'delete', 'update', 'test', 'events', 'resend', 'url-var set', 'url-var delete', 'header set', 'header delete']) SETUP[`forgectl hooks ${command} --help`] = [hook];
SETUP['forgectl hooks resend --help'].push('forgectl hooks test 1 --project acme/api >/dev/null');
SETUP['forgectl hooks url-var delete --help'].push('forgectl hooks url-var set 1 room env:ROOM_ID --project acme/api >/dev/null');
SETUP['forgectl hooks header delete --help'].push('forgectl hooks header set 1 X-Api-Key env:API_KEY --project acme/api >/dev/null');
// The service accounts the examples update and delete, besides the demo's service_account_deploy.
SETUP['forgectl service-accounts update --help'] = ['forgectl service-accounts create --group acme --username acme-release >/dev/null'];
SETUP['forgectl service-accounts delete --help'] = ['forgectl service-accounts create --instance --username svc-old >/dev/null', ...SETUP['forgectl service-accounts update --help']];
SETUP['forgectl runners unassign --help'] = ['forgectl runners assign 7 --project acme/web >/dev/null'];
const badge = "forgectl badges create --project acme/api --name ci --link-url 'https://ci.example.com/%{project_path}' --image-url 'https://ci.example.com/b.svg' >/dev/null";
for (const command of ['get', 'update', 'delete']) SETUP[`forgectl badges ${command} --help`] = [badge];
for (const command of ['get', 'update', 'delete', 'publish']) SETUP[`forgectl draft-notes ${command} --help`] = ["forgectl draft-notes create --project acme/api --mr 1 --note 'a draft' >/dev/null"];
for (const command of ['get', 'watch']) {
  SETUP[`forgectl storage-move ${command} --help`] = [
    'forgectl storage-move schedule --type project --id acme/web --to storage2 --yes >/dev/null',
    'forgectl storage-move schedule --type snippet --id 1 --to storage2 --yes >/dev/null',
    'forgectl storage-move schedule --type group --id acme --to storage2 --yes >/dev/null',
  ];
}
// The examples of the reference pages by area act on a group and a webhook the demo seed does not have.
for (const source of ['docs/projects-and-groups.md: Projects and groups — `projects`, `groups`, `members`, `group-badges` (block 1)', 'docs/projects-and-groups.md: projects create|update|archive|unarchive|transfer|delete, groups create|update|delete (block 1)']) SETUP[source] = ['forgectl groups create --name Platform --path platform --parent acme >/dev/null'];
SETUP['docs/webhooks.md: Secrets on the command line (block 1)'] = [hook];
SETUP['docs/storage-and-alerts.md: In brief (block 1)'] = ['forgectl storage-move schedule --type project --id acme/web --to storage2 --yes >/dev/null'];
for (const command of ['add', 'get']) SETUP[`forgectl merge-trains ${command} --help`] = ['forgectl approvals approve --project acme/api --mr 1 >/dev/null'];
SETUP['forgectl merge-trains get --help'].push('forgectl merge-trains add --project acme/api --mr 1 >/dev/null');
SETUP['forgectl approvals unapprove --help'] = ['forgectl approvals approve --project acme/api --mr 1 >/dev/null'];
SETUP['forgectl alerts resolve --help'] = [
  "forgectl alerts send --url \"$URL\" --key-file k --title 'queue stuck' --fingerprint queue-42 >/dev/null",
  'forgectl alerts send --url "$URL" --key-file k --payload alert.json >/dev/null',
  'forgectl alerts send --url "$PROM_URL" --key-file prometheus.key --format prometheus --title HighLatency --start-time 2026-03-01T09:00:00Z >/dev/null',
];
// plan merge combines the plans of every shard of one run: two shards' plans, in the folder and in plans/.
SETUP['forgectl plan merge --help'] = ['rm -f plan-*.json && forgectl plan -f desired.yaml --shard 1/2 --out plan-1.json >/dev/null 2>&1; forgectl plan -f desired.yaml --shard 2/2 --out plan-2.json >/dev/null 2>&1; mkdir -p plans && cp plan-1.json plan-2.json plans/'];
SETUP['forgectl push-rule delete --help'] = ['forgectl push-rule set --project acme/api --max-file-size 10 >/dev/null'];
// The reverse of a user state change starts from that state.
SETUP['forgectl users unblock --help'] = ['forgectl users block omar --yes >/dev/null'];
SETUP['forgectl users activate --help'] = ['forgectl users deactivate omar --yes >/dev/null'];
SETUP['forgectl users unban --help'] = ['forgectl users ban omar --yes >/dev/null'];
SETUP['forgectl license delete --help'] = ['forgectl license add --file ./company.license >/dev/null'];
// The --projects-file examples act on what both projects of services.txt have.
SETUP['forgectl variables get --help'] = ['forgectl variables set LOG_LEVEL --project acme/web --value info >/dev/null'];
SETUP['forgectl variables delete --help'] = ['forgectl variables set RETIRED_FLAG --projects-file services.txt --value 1 >/dev/null'];
SETUP['forgectl protected-branches unprotect --help'] = ["forgectl protected-branches protect --projects-file services.txt --name 'legacy/*' >/dev/null"];
SETUP['forgectl deploy-tokens revoke --help'] = ['forgectl deploy-tokens create --projects-file services.txt --name ci-pull --scopes read_registry --output-dir old-tokens >/dev/null'];
// The fault-injection block talks to the sandbox of the block before it, whose eval set FORGECTL_URL.
SETUP['docs/sandbox.md: The sandbox (block 2)'] = ['export FORGECTL_URL="$SANDBOX_URL"'];
