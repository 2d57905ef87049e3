import { describe, expect, it } from 'vitest';
import { Api } from '../../src/api/client.js';
import { licenses } from '../../src/resources/licenses/resource.js';
import { mergeTrains } from '../../src/resources/merge-trains/resource.js';
import { projects } from '../../src/resources/projects/resource.js';
import { repositoryFiles } from '../../src/resources/files/resource.js';
import { DryRunComplete } from '../../src/errors.js';
import { HttpClient } from '../../src/http/client.js';
import { useTestSandbox } from '../helpers/cli.js';

const sandbox = useTestSandbox();

function apiFor(dryRun = false, printed: string[] = []): Api {
  const http = new HttpClient({ timeoutMs: 10_000, retries: 0, env: {}, userAgent: 'test' });
  return new Api(
    { baseUrl: sandbox.url, token: sandbox.adminToken, tokenType: 'private', tokenSource: 'environment' },
    http,
    { dryRun, printDryRun: (text) => void printed.push(text) },
  );
}

describe('one way to send a request: call() and its siblings', () => {
  it('callResponse() answers what call() does, with the status and the headers', async () => {
    const api = apiFor();
    const data = await api.call<Array<{ id: number }>>(projects.routes.list, { per_page: 1 });
    const response = await api.callResponse<Array<{ id: number }>>(projects.routes.list, { per_page: 1 });
    expect(response.status).toBe(200);
    expect(response.data).toEqual(data);
    expect(Number(response.header('x-total'))).toBeGreaterThan(1);
  });

  it('open() answers the raw response of a declared route: a HEAD answer by its headers, a CSV by its bytes', async () => {
    const api = apiFor();
    const head = await api.open(repositoryFiles.routes.info, { project: 'acme/api', file_path: 'README.md', ref: 'main' });
    await head.body.dump();
    expect(head.status).toBe(200);
    expect(head.header('x-gitlab-file-path')).toBe('README.md');
    const csv = await api.open(licenses.routes.usageExport);
    expect(csv.header('content-type')).toMatch(/csv/);
    expect((await csv.text()).length).toBeGreaterThan(0);
  });

  it('a write with nothing but path parameters sends no body, and --dry-run prints the route expanded', async () => {
    const printed: string[] = [];
    await expect(apiFor(true, printed).call(mergeTrains.routes.add, { project: 'acme/api', merge_request_iid: 1, squash: undefined })).rejects.toBeInstanceOf(DryRunComplete);
    expect(printed).toEqual([`POST ${sandbox.url}/projects/acme%2Fapi/merge_trains/merge_requests/1\n`]);
  });
});
