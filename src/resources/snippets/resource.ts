import { f, type RecordOf } from '../../api/fields.js';
import { defineResource, placed } from '../../api/resource.js';

export const SNIPPET_VISIBILITIES = ['private', 'internal', 'public'] as const;

/** The default branch of a snippet's repository. */
export const SNIPPET_BRANCH = 'main';

/**
 * Snippets: titled sets of text files with their own small repository, of a project (the `snippets` commands, at
 * `placed(snippets, 'project')`) or personal (`/snippets`: your own, the public ones of everybody, one by id as its
 * visibility allows, raw text; the author or an administrator changes one), which the sandbox serves for other
 * clients (python-gitlab). A personal snippet's project_id is null.
 */
export const snippets = defineResource({
  noun: 'snippet',
  command: 'snippets',
  id: { param: 'snippet_id', field: 'id' },
  parents: {
    project: {
      parent: 'project',
      routes: {
        list: 'GET /projects/{project}/snippets',
        get: 'GET /projects/{project}/snippets/{snippet_id}',
        create: 'POST /projects/{project}/snippets',
        update: 'PUT /projects/{project}/snippets/{snippet_id}',
        delete: 'DELETE /projects/{project}/snippets/{snippet_id}',
        raw: 'GET /projects/{project}/snippets/{snippet_id}/raw',
        fileRaw: 'GET /projects/{project}/snippets/{snippet_id}/files/{ref}/{file_path}/raw',
        userAgent: 'GET /projects/{project}/snippets/{snippet_id}/user_agent_detail',
      },
    },
    personal: {
      parent: 'instance',
      where: () => 'personal',
      routes: {
        /** Your snippets: your personal ones and those you wrote in projects. */
        list: 'GET /snippets',
        /** Everybody's public snippets. */
        public: 'GET /snippets/public',
        /** Every snippet you may see (administrators: all of them), personal and of projects. */
        all: 'GET /snippets/all',
        get: 'GET /snippets/{snippet_id}',
        create: 'POST /snippets',
        update: 'PUT /snippets/{snippet_id}',
        delete: 'DELETE /snippets/{snippet_id}',
        raw: 'GET /snippets/{snippet_id}/raw',
        userAgent: 'GET /snippets/{snippet_id}/user_agent_detail',
      },
      roles: { read: 'guest', write: 'guest' },
    },
  },
  fields: {
    id: f.int({ min: 1, readOnly: true }),
    title: f.string({ create: 'required', help: 'the title', placeholder: '<title>' }),
    description: f.string({ help: 'a description', placeholder: '<text>', nullable: true }),
    visibility: f.enum(SNIPPET_VISIBILITIES, { default: 'private', help: 'private (project members), internal (signed-in users) or public' }),
    author: f.object(),
    updated_at: f.time({ readOnly: true }),
    created_at: f.time({ readOnly: true }),
    project_id: f.int({ readOnly: true }),
    web_url: f.url({ readOnly: true }),
    raw_url: f.url({ readOnly: true }),
    ssh_url_to_repo: f.string({ readOnly: true }),
    http_url_to_repo: f.url({ readOnly: true }),
    file_name: f.string({ readOnly: true }),
    files: f.object<Array<{ path: string; raw_url: string }>>({ help: 'the files: [{path, raw_url}]' }),
    imported: f.bool({ readOnly: true }),
    imported_from: f.string({ readOnly: true }),
  },
  columns: ['id', 'title', 'visibility', 'paths', 'updated_at'],
  computed: ['paths'],
  identity: ['title'],
  roles: { read: 'guest', write: 'reporter' },
});

/** A snippet as the service presents it. */
export type SnippetRecord = RecordOf<typeof snippets>;

/** Project snippets, as the `snippets` commands and the sandbox's generated module serve them. */
export const projectSnippets = placed(snippets, 'project');

/** One change of a snippet update (`files` of PUT). */
export interface SnippetFileAction {
  action: 'create' | 'update' | 'delete' | 'move';
  file_path: string;
  content?: string;
  previous_path?: string;
}
