import { errors, type SandboxRequest } from './http.js';
import type { Avatar } from './model.js';

/**
 * Project and group avatars: a multipart `avatar` file on create or update is stored and served where the record's
 * avatar_url points (/uploads/-/system/project/avatar/:id/:filename, by routes/avatars.ts); `avatar=` (empty)
 * removes it. As the service's uploader, only image formats are accepted, up to 200 KiB.
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
