import { findGroup, findProject, requireAdmin, requireTier } from '../../sandbox/auth.js';
import type { Db } from '../../sandbox/db.js';
import { accepted, created, errors, ok, type SandboxRequest } from '../../sandbox/http.js';
import { groups, projects, snippets, type Project, type MoveKind, type StorageMove, storageMoveTable } from '../../sandbox/model.js';
import { paginate } from '../../sandbox/pagination.js';
import { presentProject } from '../../sandbox/present.js';
import { seedDemoSnippet, snippetUrls } from '../../sandbox/snippets.js';
import type { SandboxModule } from '../../sandbox/module.js';
import type { Router } from '../../sandbox/router.js';
import { containerOf, groupWiki, moveState, repositoryStorages, settleStorageMoves, statesOf } from '../../sandbox/storage-moves.js';
import { storageMoves as declared } from './resource.js';
import { placed } from '../../api/resource.js';
import { found, presentRecord, type Values } from '../../sandbox/records.js';
import { groupById, projectById } from '../../sandbox/hierarchy.js';

/**
 * Repository storage moves (document 3; api-facts §1.17) of projects, snippets and group wikis.
 *
 * A move's state is computed from its creation time whenever it is read, so it advances without timers and the
 * same instant always gives the same answer: `initial` (bulk moves only) → `scheduled` → `started` → `replicated`
 * → `finished`, one step every `step_ms` (1 s by default, so a move takes a few seconds). The repository is
 * read-only from scheduling until the move is replicated or has failed. Side effects (read-only flag, new storage)
 * are applied by settle(), on every request of this module and once by an unref'd timer when the move ends.
 *
 * Failures are injected with configureStorageMoves(db, { failNext: n }): the next n moves fail after `started`.
 */

interface MoveTiming {
  step_ms: number;
  fail_next: number;
}

const timing = (db: Db): MoveTiming => db.record<MoveTiming>('storage_move_timing', () => ({ step_ms: 1000, fail_next: 0 }));

/** Test and demo control: how long each state lasts, and how many of the next moves fail. */
export function configureStorageMoves(db: Db, options: { stepMs?: number; failNext?: number }): void {
  const current = timing(db);
  if (options.stepMs !== undefined) current.step_ms = options.stepMs;
  if (options.failNext !== undefined) current.fail_next = options.failNext;
}

interface KindConfig {
  kind: MoveKind;
  /** The id sequence of the kind's moves. */
  collection: string;
  /** Group wikis need Premium. */
  tier?: 'premium';
  find(req: SandboxRequest): { id: number };
  /** Ids of the items whose repository is on the storage. */
  onStorage(db: Db, storage: string): number[];
  /** The item moved, as a move presents it (null when it is gone). */
  item(req: SandboxRequest, id: number): Values | null;
}

function moveProject(project: Project | undefined, req: SandboxRequest): Values | null {
  if (!project) return null;
  const full = presentProject(req, project, { simple: true });
  return { id: project.id, description: project.description, name: project.name, name_with_namespace: full.name_with_namespace, path: project.path, path_with_namespace: project.path_with_namespace, created_at: project.created_at };
}

const KINDS: KindConfig[] = [
  {
    kind: 'project',
    collection: 'project_repository_storage_moves',
    find: (req) => findProject(req.db, req.params.project),
    onStorage: (db, storage) => projects(db).filter((p) => p.repository_storage === storage).map((p) => p.id),
    item: (req, id) => moveProject(projectById(req.db, id), req),
  },
  {
    kind: 'snippet',
    collection: 'snippet_repository_storage_moves',
    find: (req) => found(snippets(req.db).find((s) => String(s.id) === req.params.snippet_id), 'Snippet'),
    onStorage: (db, storage) => snippets(db).filter((s) => (s.repository_storage ?? 'default') === storage).map((s) => s.id),
    item: (req, id) => {
      const snippet = snippets(req.db).find((s) => s.id === id);
      if (!snippet) return null;
      const { id: _, title, description, visibility, updated_at, created_at, project_id } = snippet;
      return { id, title, description, visibility, updated_at, created_at, project_id, ...snippetUrls(snippet, req.db, req.rootUrl) };
    },
  },
  {
    kind: 'group',
    collection: 'group_repository_storage_moves',
    tier: 'premium',
    find: (req) => findGroup(req.db, req.params.group),
    onStorage: (db, storage) => groups(db).filter((g) => groupWiki(db, g.id).repository_storage === storage).map((g) => g.id),
    item: (req, id) => {
      const group = groupById(req.db, id);
      return group ? { id: group.id, web_url: `${req.rootUrl}/groups/${group.full_path}`, name: group.name } : null;
    },
  },
];

/** A move as the service presents it: its state by the clock, and the item of its kind. */
const presentMove = (req: SandboxRequest, config: KindConfig, move: StorageMove): Values =>
  presentRecord(placed(declared, config.kind), move, { state: moveState(move, req.now()), [config.kind]: config.item(req, move.container_id) });

/** Every route of this module is for administrators (authenticated_as_admin!), and brings states up to date. */
function guard(req: SandboxRequest, config: KindConfig): void {
  requireAdmin(req);
  if (config.tier) requireTier(req, config.tier);
  settleStorageMoves(req.db, req.now());
}

function moveId(req: SandboxRequest): number {
  const value = req.params.move_id;
  if (!/^\d+$/.test(value)) throw errors.error(400, 'repository_storage_move_id is invalid');
  return Number(value);
}

function storageParam(req: SandboxRequest, name: string, isRequired: boolean): string | undefined {
  const value = req.input[name];
  if (value === undefined || value === null || value === '') {
    if (isRequired) throw errors.missing(name);
    return undefined;
  }
  if (!repositoryStorages(req.db).includes(String(value))) throw errors.invalid(name);
  return String(value);
}

/** Without a destination the service picks one by weight; the sandbox takes the first other storage. */
function chooseDestination(db: Db, source: string): string {
  return repositoryStorages(db).find((s) => s !== source) ?? source;
}

function createMove(req: SandboxRequest, config: KindConfig, containerId: number, source: string, destination: string, bulk: boolean): StorageMove {
  const control = timing(req.db);
  const move: StorageMove = {
    id: req.db.nextId(config.collection),
    kind: config.kind,
    container_id: containerId,
    created_at: req.now().toISOString(),
    source_storage_name: source,
    destination_storage_name: destination,
    bulk,
    fails: control.fail_next > 0,
    step_ms: control.step_ms,
    settled: false,
  };
  if (move.fails) control.fail_next--;
  storageMoveTable(req.db).push(move);
  settleStorageMoves(req.db, req.now());
  // Apply the end state even when nobody asks (other modules read repository_read_only); unref'd, so a closed
  // sandbox or a test run never waits for it.
  const db = req.db;
  setTimeout(() => settleStorageMoves(db, new Date()), move.step_ms * statesOf(move).length + 5).unref();
  return move;
}

function movesOf(req: SandboxRequest, config: KindConfig, containerId?: number): StorageMove[] {
  return storageMoveTable(req.db)
    .filter((m) => m.kind === config.kind && (containerId === undefined || m.container_id === containerId))
    .sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id - a.id);
}

/** The list and one move of a kind's moves: the instance's, or (`itemOf` the route's item) one item's. */
function readRoutes(api: Router, config: KindConfig, list: string, get: string, itemOf?: (req: SandboxRequest) => number): void {
  const moves = (req: SandboxRequest): StorageMove[] => {
    guard(req, config);
    return movesOf(req, config, itemOf?.(req));
  };
  api.route(list, (req) => paginate(req, moves(req), { present: (m) => presentMove(req, config, m) }));
  api.route(get, (req) => {
    const candidates = moves(req);
    const id = moveId(req);
    const move = found(candidates.find((m) => m.id === id));
    return ok(presentMove(req, config, move));
  });
}

/** The instance's moves of a kind: the list, one move, and scheduling every item on a storage. */
function instanceRoutes(api: Router, config: KindConfig): void {
  const { routes } = declared.parents[config.kind];
  readRoutes(api, config, routes.list, routes.get);

  api.route(routes.scheduleAll, (req) => {
    guard(req, config);
    const source = storageParam(req, 'source_storage_name', true)!;
    const destination = storageParam(req, 'destination_storage_name', false) ?? chooseDestination(req.db, source);
    // The worker skips (and logs) containers that are read-only, e.g. already moving.
    for (const id of config.onStorage(req.db, source)) {
      if (!containerOf(req.db, config.kind, id)?.repository_read_only) createMove(req, config, id, source, destination, true);
    }
    return accepted();
  });
}

/** One item's moves: the list, one move, and scheduling one. */
function itemRoutes(api: Router, config: KindConfig): void {
  const { routes } = declared.parents[config.kind];
  readRoutes(api, config, routes.listOfItem, routes.getOfItem, (req) => config.find(req).id);

  api.route(routes.schedule, (req) => {
    guard(req, config);
    const item = config.find(req);
    const container = containerOf(req.db, config.kind, item.id)!;
    const requested = req.input.destination_storage_name;
    const destination = requested === undefined || requested === null || requested === '' ? chooseDestination(req.db, container.repository_storage) : String(requested);
    if (!repositoryStorages(req.db).includes(destination)) throw errors.validation({ destination_storage_name: ['is not included in the list'] });
    if (container.repository_read_only) throw errors.validation({ [config.kind]: ['is read-only'] });
    return created(presentMove(req, config, createMove(req, config, item.id, container.repository_storage, destination, false)));
  });
}

export const storageMoves: SandboxModule = {
  routes(api) {
    for (const config of KINDS) {
      instanceRoutes(api, config);
      itemRoutes(api, config);
    }
  },
  seed(db, context) {
    seedDemoSnippet(db, context.now);
  },
};

