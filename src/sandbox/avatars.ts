import { errors, HttpError, type SandboxRequest } from './http.js';
import { groups, projects, type Avatar } from './model.js';
import type { SandboxModule } from './module.js';

/**
 * Project and group avatars: a multipart `avatar` file on create or update is stored and served where the record's
 * avatar_url points (/uploads/-/system/project/avatar/:id/:filename); `avatar=` (empty) removes it. As the service's
 * uploader, only image formats are accepted, up to 200 KiB.
 */

const FORMATS = ['png', 'jpg', 'jpeg', 'gif', 'bmp', 'tiff', 'ico', 'webp'];
const MAX_SIZE = 200 * 1024;

/** The avatar a request sets: a new one, null to remove it, undefined to leave it. */
export function avatarFrom(req: SandboxRequest): Avatar | null | undefined {
  const file = req.files.avatar;
  if (!file) return req.input.avatar === '' ? null : undefined;
  const extension = /\.([^.]+)$/.exec(file.filename)?.[1]?.toLowerCase() ?? '';
  if (!FORMATS.includes(extension)) {
    throw errors.validation({ avatar: [`file format is not supported. Please try one of the following supported formats: ${FORMATS.join(', ')}`] });
  }
  if (file.data.length > MAX_SIZE) throw errors.validation({ avatar: ['is too big (should be at most 200 KiB)'] });
  return { filename: file.filename.replace(/.*[\\/]/, ''), type: file.contentType, data: file.data.toString('base64') };
}

/** Applies avatarFrom to a record. */
export function applyAvatar(req: SandboxRequest, record: { avatar?: Avatar }): void {
  const avatar = avatarFrom(req);
  if (avatar === null) delete record.avatar;
  else if (avatar) record.avatar = avatar;
}

export const avatars: SandboxModule = {
  routes(_api, web) {
    for (const [kind, table] of [['project', projects], ['group', groups]] as const) {
      web.get(`/uploads/-/system/${kind}/avatar/:record_id/:file`, (req) => {
        const avatar = table(req.db).find((r) => String(r.id) === req.params.record_id)?.avatar;
        if (!avatar || avatar.filename !== req.params.file) throw new HttpError(404, 'Not Found');
        return { status: 200, raw: { data: Buffer.from(avatar.data, 'base64'), contentType: avatar.type } };
      }, { auth: 'none' });
    }
  },
};
