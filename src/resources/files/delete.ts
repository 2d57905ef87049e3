import { fileWriteCommand } from './write.js';

export default fileWriteCommand('delete');
