import { p } from '../../api/path.js';

/** Limits of spec 1, checked before an upload is sent. */
export const MAX_FILE_BYTES = 5 * 1024 * 1024;
export const MAX_FILES_PER_PROJECT = 100;

export interface SecureFileRecord {
  id: number;
  name: string;
  checksum: string;
  checksum_algorithm: string;
}

export const secureFileColumns = ['id', 'name', 'checksum', 'created_at', 'expires_at'];

export const filesPath = (project: string): string => p`/projects/${project}/secure_files`;
export const filePath = (project: string, id: number): string => p`/projects/${project}/secure_files/${id}`;
