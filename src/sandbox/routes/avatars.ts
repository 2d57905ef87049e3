import { HttpError } from '../http.js';
import { groups, projects } from '../model.js';
import type { SandboxModule } from '../module.js';

/** Where project and group avatars are served: the avatar_url of the record (stored by ../avatars.ts). */
export const avatars: SandboxModule = {
  routes(_api, web) {
    for (const [kind, table] of [['project', projects], ['group', groups]] as const) {
      web.add('GET', `/uploads/-/system/${kind}/avatar/:record_id/:file`, (req) => {
        const avatar = table(req.db).find((r) => String(r.id) === req.params.record_id)?.avatar;
        if (!avatar || avatar.filename !== req.params.file) throw new HttpError(404, 'Not Found');
        return { status: 200, raw: { data: Buffer.from(avatar.data, 'base64'), contentType: avatar.type } };
      }, { auth: 'none' });
    }
  },
};
