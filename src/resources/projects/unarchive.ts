import { archiveCommand } from './settings.js';

export default archiveCommand('unarchive', 'Makes an archived project writable again. Needs the Maintainer role.');
