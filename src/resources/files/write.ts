import { withMissingBranchHint } from '../../api/commit-actions.js';
import { repositoryFiles } from './resource.js';
import { commits } from '../commits/resource.js';
import { checkPushAllowed } from '../branches/protected-ref.js';
import { defineCommand, type OptionDef } from '../../cli/command.js';
import { projectOption, repoPathArg } from '../../cli/options.js';
import { repoPath } from '../../git/content.js';
import { contentBody, contentOptions, readContent, writeBody, writeOptions, type ContentFlags, type WriteFlags } from './shared.js';

/** `files create`, `files update` and `files delete`: one file changed by one commit. */

const lastCommitOption: OptionDef = { flags: '--last-commit-id <sha>', description: 'refuse (exit 6) when a later commit than this one changed the file' };

type Flags = WriteFlags & Partial<ContentFlags> & { project?: string; path: string; lastCommitId?: string };

export function fileWriteCommand(verb: 'create' | 'update' | 'delete') {
  const route = repositoryFiles.routes[verb];
  return defineCommand<Flags>({
    effect: verb === 'delete' ? 'destructive' : 'write',
    examples: {
      create: ['forgectl files create docs/intro.md --branch main -m "Add an intro" --content-file intro.md --project acme/api', 'echo ok | forgectl files create status.txt --branch feature -m status --content-file - --project acme/api'],
      update: ['forgectl files update README.md --branch main -m "Update the readme" --content-file README.md --project acme/api'],
      delete: ['forgectl files delete docs/deploy.md --branch main -m "Remove the deploy notes" --project acme/api --yes'],
    }[verb],
    args: [repoPathArg],
    options: [projectOption, ...writeOptions, ...(verb === 'delete' ? [] : contentOptions), ...(verb === 'create' ? [] : [lastCommitOption])],
    async run(opts, ctx) {
      const project = ctx.project(opts.project);
      const filePath = repoPath(opts.path);
      await checkPushAllowed(ctx, project, opts.branch);
      const content = verb === 'delete' ? {} : contentBody(await readContent(ctx, opts.contentFile!), opts as ContentFlags);
      if (verb === 'delete') await ctx.confirm(`Delete ${filePath} on branch ${opts.branch} of project ${project}?`);
      // The files API takes last_commit_id on a delete but does not check it; the commits API checks it on a delete action.
      const checkedDelete = verb === 'delete' && opts.lastCommitId !== undefined;
      const sent = checkedDelete
        ? ctx.api.call(commits.routes.create, { project, ...writeBody(opts), actions: [{ action: 'delete', file_path: filePath, last_commit_id: opts.lastCommitId }] })
        : ctx.api.call(route, { project, file_path: filePath, ...writeBody(opts), ...content, last_commit_id: opts.lastCommitId });
      await sent.catch((error: unknown) => {
        throw withMissingBranchHint(error, opts.branch);
      });
      ctx.io.note(`${verb === 'create' ? 'Created' : verb === 'update' ? 'Updated' : 'Deleted'} ${filePath} on ${opts.branch}`);
      return verb === 'delete' ? undefined : stripContent(await ctx.api.call(repositoryFiles.routes.get, { project, file_path: filePath, ref: opts.branch }));
    },
  });
}

function stripContent(record: unknown): unknown {
  const { content: _content, ...rest } = record as Record<string, unknown>;
  return rest;
}
