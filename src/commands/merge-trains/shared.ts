/** Default columns of merge train entries. */
export const trainColumns = ['id', 'merge_request.iid', 'merge_request.title', 'target_branch', 'status', 'user.username', 'pipeline.status', 'created_at', 'merged_at'];
