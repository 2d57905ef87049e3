import { artifacts } from '../artifacts/resource.js';
import { pipelines as declaredPipelines } from './resource.js';
import { findProject, projectFor, requireTier, Role } from '../../sandbox/auth.js';
import { newTokenValue, type Db } from '../../sandbox/db.js';
import { accepted, contentDisposition, errors, ok, type SandboxRequest, type SandboxResponse } from '../../sandbox/http.js';
import { crudModule } from '../../sandbox/crud.js';
import { jobs, pipelines, repositories, users, type Job, type Pipeline, type Project, type StoredEntry } from '../../sandbox/model.js';
import type { SeedContext } from '../../sandbox/module.js';
import { paginate } from '../../sandbox/pagination.js';
import { jobAnswer, pipelineComputed, pipelineOf, toZipEntry } from '../../sandbox/pipelines.js';
import type { Router } from '../../sandbox/router.js';
import { addToken } from '../../sandbox/seed.js';
import { entryContent, entrySize, readZip, zipLayout } from '../../sandbox/zip.js';
import { byteRange } from '../../sandbox/bytes.js';
import { projectById } from '../../sandbox/hierarchy.js';
import { found } from '../../sandbox/records.js';

/**
 * Pipelines and jobs, as far as job artifacts need them (document 2, "Job artifacts"; api-facts §1.13): pipelines per
 * ref with their jobs, artifact archives served as real zip files (large ones generated and streamed, any byte range),
 * single files from an archive, keep, delete, and delete-all. "The latest successful pipeline of the ref" decides the
 * by-ref downloads, a parent pipeline's job winning over a child's of the same name.
 */

/** Whether the job's archive can still be downloaded: present, and not expired (unless it is locked as the latest). */
function archiveAvailable(db: Db, job: Job, now: Date): boolean {
  if (!job.archive) return false;
  if (!job.artifacts_expire_at || job.artifacts_expire_at > now.toISOString()) return true;
  return lockedAsLatest(db, job);
}

/**
 * The service locks the artifacts of the latest successful pipeline of each ref (and of its child pipelines) while
 * the project keeps its latest artifacts (keep_latest_artifact, on by default): they outlive their expiry and
 * "delete all" leaves them.
 */
function lockedAsLatest(db: Db, job: Job): boolean {
  const project = projectById(db, job.project_id);
  return project?.keep_latest_artifact !== false && isLatestSuccessful(db, pipelineOf(db, job));
}

/** The newest successful pipeline of a ref that no other pipeline triggered (decided by creation time). */
function latestSuccessfulPipeline(db: Db, projectId: number, ref: string): Pipeline | undefined {
  return pipelines(db)
    .filter((p) => p.project_id === projectId && p.ref === ref && p.status === 'success' && p.parent_id === null)
    .sort((a, b) => (a.created_at === b.created_at ? b.id - a.id : a.created_at < b.created_at ? 1 : -1))[0];
}

/** A pipeline is "the latest successful one" of its ref, or a child of that one: its artifacts are kept. */
function isLatestSuccessful(db: Db, pipeline: Pipeline): boolean {
  let root = pipeline;
  while (root.parent_id !== null) root = pipelines(db).find((p) => p.id === root.parent_id) ?? root;
  return latestSuccessfulPipeline(db, root.project_id, root.ref)?.id === root.id;
}

/** A pipeline and its descendants, parents first (a parent's job wins over a child's of the same name). */
function selfAndDescendants(db: Db, pipeline: Pipeline): Pipeline[] {
  const out = [pipeline];
  for (let i = 0; i < out.length; i++) out.push(...pipelines(db).filter((p) => p.parent_id === out[i].id).sort((a, b) => a.id - b.id));
  return out;
}

/** The job `name` with artifacts in the latest successful pipeline of `ref`, or a 404 that says which part is missing. */
function latestSuccessfulJob(req: SandboxRequest, project: Project, ref: string, name: string): Job {
  const pipeline = found(latestSuccessfulPipeline(req.db, project.id, ref));
  for (const candidate of selfAndDescendants(req.db, pipeline)) {
    const job = jobs(req.db).find((j) => j.pipeline_id === candidate.id && j.name === name && j.status === 'success' && archiveAvailable(req.db, j, req.now()));
    if (job) return job;
  }
  throw errors.notFound();
}

function findJob(req: SandboxRequest, project: Project): Job {
  return found(jobs(req.db).find((j) => j.project_id === project.id && String(j.id) === req.params.job_id));
}

/**
 * The project of an artifact route, for a reader: Reporter (or a public project), or a CI job token of a running job
 * of the same project, which the spec allows on Premium and Ultimate.
 */
function artifactProject(req: SandboxRequest, minRole: number = Role.reporter): Project {
  if (req.token?.kind === 'job') {
    requireTier(req, 'premium');
    const job = jobs(req.db).find((j) => j.id === req.token!.resource_id);
    if (!job || job.status !== 'running') throw errors.unauthorized();
    const project = findProject(req.db, req.params.project);
    if (project.id !== job.project_id) throw errors.forbidden();
    return project;
  }
  return projectFor(req, minRole);
}

/** Serves an archive with ETag and Accept-Ranges; a single byte range gets 206 while If-Range still matches. */
function serveArchive(req: SandboxRequest, job: Job): SandboxResponse {
  const layout = zipLayout(job.archive!.map(toZipEntry));
  const headers: Record<string, string> = {
    ETag: layout.etag,
    'Accept-Ranges': 'bytes',
    'Content-Disposition': `attachment; filename="artifacts.zip"; filename*=UTF-8''artifacts.zip`,
  };
  const range = byteRange(req, layout.size, layout.etag);
  if (range === 'unsatisfiable') {
    return { status: 416, raw: { data: '', contentType: 'application/zip' }, headers: { ...headers, 'Content-Range': `bytes */${layout.size}` } };
  }
  // A range that does not parse gets the whole archive.
  if (range === undefined || range === 'malformed') return { status: 200, headers, stream: { size: layout.size, contentType: 'application/zip', chunks: readZip(layout) } };
  const [start, end] = range;
  return {
    status: 206,
    headers: { ...headers, 'Content-Range': `bytes ${start}-${end - 1}/${layout.size}` },
    stream: { size: end - start, contentType: 'application/zip', chunks: readZip(layout, start, end) },
  };
}

/** A path inside an archive: relative, without `..` segments or a leading slash (400 otherwise). */
function checkArtifactPath(path: string): string {
  if (!path || path.startsWith('/') || path.split('/').some((part) => part === '..' || part === '.') || path.includes('\0')) {
    throw errors.badRequest('artifact_path is invalid');
  }
  return path;
}

/** One file of an archive, streamed. */
function serveEntry(job: Job, path: string): SandboxResponse {
  const entry = found(job.archive!.find((e) => e.name === path && !(e.mode !== undefined && (e.mode & 0o170000) === 0o040000)));
  const source = toZipEntry(entry);
  const name = path.split('/').pop()!;
  return {
    status: 200,
    headers: { 'Content-Disposition': contentDisposition('attachment', name) },
    stream: { size: entrySize(source), contentType: 'text/plain; charset=utf-8', chunks: entryContent(source) },
  };
}

/**
 * Pipelines from their declaration (newest first; an empty ref or status filter is none), with the routes of their
 * jobs and the jobs' artifacts beside them.
 */
export const pipelinesModule = crudModule<Pipeline>(declaredPipelines, {
  notFound: '',
  listed: (list) => [...list].reverse(),
  filters: { ref: (pipeline, wanted) => !wanted || pipeline.ref === wanted, status: (pipeline, wanted) => !wanted || pipeline.status === wanted },
  computed: (pipeline, req, project) => pipelineComputed(req, pipeline, project as Project),
  routes: jobRoutes,
  // The running job's token comes after the group and project access tokens (the demo's token ids).
  seedAfter: ['access-tokens'],
  seed,
});

/** The jobs of a project and of a pipeline, one job, and its artifacts. */
function jobRoutes(api: Router): void {
  const { routes } = artifacts;
  const listed = (req: SandboxRequest, list: Job[], project: Project) => paginate(req, list.sort((a, b) => b.id - a.id), { present: (j) => jobAnswer(req, j, project) });

  api.route(routes.pipelineJobs, (req) => {
    const project = projectFor(req, Role.reporter);
    return listed(req, jobs(req.db).filter((j) => j.project_id === project.id && String(j.pipeline_id) === req.params.pipeline_id), project);
  });
  api.route(routes.list, (req) => {
    const project = projectFor(req, Role.reporter);
    const scopes = ([] as string[]).concat(req.query.scope ?? []);
    return listed(req, jobs(req.db).filter((j) => j.project_id === project.id && (!scopes.length || scopes.includes(j.status))), project);
  });
  api.route(routes.get, (req) => {
    const project = artifactProject(req);
    return ok(jobAnswer(req, findJob(req, project), project));
  });

  // Downloads by ref first: /jobs/artifacts/main/download must not be read as the job "artifacts".
  api.route(routes.archiveByRef, (req) => {
    const project = artifactProject(req);
    const name = req.query.job as string | undefined;
    if (!name) throw errors.missing('job');
    return serveArchive(req, latestSuccessfulJob(req, project, req.params.ref_name, name));
  });
  api.route(routes.fileByRef, (req) => {
    const project = artifactProject(req);
    const name = req.query.job as string | undefined;
    if (!name) throw errors.missing('job');
    const path = checkArtifactPath(req.params.artifact_path);
    return serveEntry(latestSuccessfulJob(req, project, req.params.ref_name, name), path);
  });
  api.route(routes.archive, (req) => {
    const project = artifactProject(req);
    const job = findJob(req, project);
    if (!archiveAvailable(req.db, job, req.now())) throw errors.notFound();
    return serveArchive(req, job);
  });
  api.route(routes.file, (req) => {
    const project = artifactProject(req);
    const job = findJob(req, project);
    const path = checkArtifactPath(req.params.artifact_path);
    if (!archiveAvailable(req.db, job, req.now())) throw errors.notFound();
    return serveEntry(job, path);
  });
  api.route(routes.keep, (req) => {
    const project = projectFor(req, Role.developer);
    const job = findJob(req, project);
    if (!archiveAvailable(req.db, job, req.now())) throw errors.notFound();
    job.artifacts_expire_at = null;
    return ok(jobAnswer(req, job, project));
  });
  api.route(routes.delete, (req) => {
    const project = projectFor(req, Role.maintainer);
    const job = findJob(req, project);
    if (!job.archive && !job.reports.length) throw errors.notFound();
    job.archive = null;
    job.reports = [];
    return { status: 204 };
  });
  api.route(routes.deleteAll, (req) => {
    const project = projectFor(req, Role.maintainer);
    // The service sets the expiry of every deletable artifact to now; its cleanup removes them later. Artifacts of
    // the latest successful pipeline of each ref are kept, and job logs are never touched.
    const at = req.now().toISOString();
    for (const job of jobs(req.db).filter((j) => j.project_id === project.id && (j.archive || j.reports.length))) {
      if (!lockedAsLatest(req.db, job)) job.artifacts_expire_at = at;
    }
    return accepted();
  });
}

/** Pipelines of acme/api on main, a tag and a feature branch, with jobs, artifacts and a running job's token. */
function seed(db: Db, context: SeedContext, insert: (projectId: number, values: Partial<Pipeline>) => Pipeline): void {
  const project = findProject(db, 'acme/api');
  const repo = repositories(db).find((r) => r.project_id === project.id)!;
  const bob = users(db).find((u) => u.username === 'bob')!;
  const { now } = context;
  const at = (hoursAgo: number) => new Date(now.getTime() - hoursAgo * 3_600_000).toISOString();
  const expires = new Date(now.getTime() + 30 * 86_400_000).toISOString();
  let iid = 0;
  const pipeline = (ref: string, status: Pipeline['status'], hoursAgo: number, parent?: Pipeline): Pipeline => {
    const tag = ref in repo.tags;
    return insert(project.id, {
      iid: ++iid, ref, tag, sha: (tag ? repo.tags[ref] : repo.branches[ref]) ?? '',
      status, source: parent ? 'parent_pipeline' : 'push', parent_id: parent?.id ?? null, user_id: bob.id,
      created_at: at(hoursAgo), updated_at: at(hoursAgo - 0.2), finished_at: status === 'running' ? null : at(hoursAgo - 0.2),
    });
  };
  const job = (of: Pipeline, name: string, stage: string, fields: Partial<Job> = {}): Job => {
    const record: Job = {
      id: db.nextId('jobs'), project_id: project.id, pipeline_id: of.id, name, stage, status: of.status === 'running' ? 'running' : 'success',
      when: 'on_success', allow_failure: false, user_id: bob.id, created_at: of.created_at, started_at: of.created_at,
      finished_at: of.status === 'running' ? null : of.updated_at, archive: null, reports: [], artifacts_expire_at: expires, ...fields,
    };
    jobs(db).push(record);
    return record;
  };
  const build = (version: string, big?: number): StoredEntry[] => [
    { name: 'dist/', mode: 0o040755 },
    { name: 'dist/app.js', text: `// acme/api ${version}\nconsole.log('hello from acme/api');\n` },
    { name: 'dist/app.css', text: 'body { font-family: sans-serif; }\n' },
    { name: 'dist/VERSION', text: `${version}\n` },
    ...(big ? [{ name: 'dist/bundle.bin', generated: { size: big, seed: `acme-api-${version}` } }] : []),
  ];
  const junit = { file_type: 'junit', filename: 'junit.xml.gz', size: 612, file_format: 'gzip' };

  // main: an older and the latest successful pipeline (with a child pipeline), and a failed one in between.
  const older = pipeline('main', 'success', 30);
  job(older, 'build', 'build', { archive: build('0.9.0') });
  job(older, 'test', 'test', { reports: [junit] });
  const failed = pipeline('main', 'failed', 20);
  job(failed, 'build', 'build', { status: 'failed', archive: null });
  const latest = pipeline('main', 'success', 6);
  job(latest, 'build', 'build', { archive: build('1.0.1', context.artifactSize) });
  job(latest, 'test', 'test', { reports: [junit] });
  job(latest, 'deploy', 'deploy', { when: 'manual', status: 'manual', allow_failure: true });
  const child = pipeline('main', 'success', 5.9, latest);
  job(child, 'build', 'build', { archive: [{ name: 'child.txt', text: 'built by the child pipeline\n' }] });
  job(child, 'docs', 'build', { archive: [{ name: 'docs/index.html', text: '<h1>acme/api</h1>\n' }] });
  // The release tag.
  const release = pipeline('v1.0.0', 'success', 48);
  job(release, 'build', 'build', { archive: build('1.0.0'), artifacts_expire_at: null });
  // A running pipeline on the feature branch, with a job token as a CI job has it.
  const running = pipeline('feature/health', 'running', 0.1);
  const runningJob = job(running, 'build', 'build');
  addToken(db, bob, { kind: 'job', name: `job-${runningJob.id}`, resource_id: runningJob.id, scopes: [], token: `glcbt-${newTokenValue('')}`, expires_at: null }, now);
}
