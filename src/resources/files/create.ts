import { fileWriteCommand } from './write.js';

export default fileWriteCommand('create');
