/** What a request answers: the status, the headers, and the body parsed from JSON. */
export interface ApiResponse<T = unknown> {
  status: number;
  header(name: string): string | undefined;
  data: T;
  /** The bytes `data` was parsed from. */
  body?: Buffer;
}
