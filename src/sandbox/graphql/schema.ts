/**
 * The part of the service's GraphQL schema the sandbox serves, in the service's own names (its reference, and
 * doc/api/graphql/reference/gitlab_schema.graphql): who is signed in, users, projects, groups and CI runners as
 * connections (first/after, last/before, pageInfo, count), one of each by id or path, and the mutation that deletes
 * runners in bulk.
 */

const PAGE_ARGUMENTS = `
    "Returns the elements in the list that come after the specified cursor."
    after: String
    "Returns the elements in the list that come before the specified cursor."
    before: String
    "Returns the first _n_ elements from the list."
    first: Int
    "Returns the last _n_ elements from the list."
    last: Int`;

/** A connection type and its edge type, as the service names them (`UserCoreConnection`, `UserCoreEdge`). */
const connection = (node: string, name = node): string => `
"The connection type for ${node}."
type ${name}Connection {
  "Total count of collection."
  count: Int!
  "A list of edges."
  edges: [${name}Edge]
  "A list of nodes."
  nodes: [${node}]
  "Information to aid in pagination."
  pageInfo: PageInfo!
}

"An edge in a connection."
type ${name}Edge {
  "A cursor for use in pagination."
  cursor: String!
  "The item at the end of the edge."
  node: ${node}
}
`;

const USER_FIELDS = `
  "Global ID of the user."
  id: ID!
  "Username of the user. Unique within the instance of GitLab."
  username: String!
  "Human-readable name of the user."
  name: String!
  "State of the user."
  state: UserState!
  "Indicates if the user is a bot."
  bot: Boolean!
  "User's public email."
  publicEmail: String
  "Location of the user."
  location: String
  "URL of the user's avatar."
  avatarUrl: String
  "Web URL of the user."
  webUrl: String!
  "Web path of the user."
  webPath: String!
  "Timestamp of when the user was created."
  createdAt: Time
  "Date the user last performed any actions."
  lastActivityOn: Date
  "Permissions for the current user on the resource."
  userPermissions: UserPermissions!`;

export const SCHEMA = `
"Time represented in ISO 8601."
scalar Time
"Date represented in ISO 8601."
scalar Date
"A \`CiRunnerID\` is a global ID. It is encoded as a string. An example \`CiRunnerID\` is: \`\\"gid://gitlab/Ci::Runner/1\\"\`."
scalar CiRunnerID
"A \`UserID\` is a global ID. It is encoded as a string. An example \`UserID\` is: \`\\"gid://gitlab/User/1\\"\`."
scalar UserID

"Information about pagination in a connection."
type PageInfo {
  "When paginating forwards, the cursor to continue."
  endCursor: String
  "When paginating forwards, are there more items?"
  hasNextPage: Boolean!
  "When paginating backwards, are there more items?"
  hasPreviousPage: Boolean!
  "When paginating backwards, the cursor to continue."
  startCursor: String
}

"Possible states of a user."
enum UserState {
  "User is active and can use the system."
  active
  "User has been blocked by an administrator and cannot use the system."
  blocked
  "User is no longer active and cannot use the system."
  deactivated
  "User is blocked, and their contributions are hidden."
  banned
}

"Common sort values."
enum Sort {
  "Updated at descending order."
  UPDATED_DESC
  "Updated at ascending order."
  UPDATED_ASC
  "Created at descending order."
  CREATED_DESC
  "Created at ascending order."
  CREATED_ASC
  updated_desc @deprecated(reason: "This was renamed. Please use \`UPDATED_DESC\`. Deprecated in GitLab 13.5.")
  updated_asc @deprecated(reason: "This was renamed. Please use \`UPDATED_ASC\`. Deprecated in GitLab 13.5.")
  created_desc @deprecated(reason: "This was renamed. Please use \`CREATED_DESC\`. Deprecated in GitLab 13.5.")
  created_asc @deprecated(reason: "This was renamed. Please use \`CREATED_ASC\`. Deprecated in GitLab 13.5.")
}

type UserPermissions {
  "If \`true\`, the user can perform \`create_snippet\` on this resource"
  createSnippet: Boolean!
}

"The currently authenticated GitLab user."
type CurrentUser {${USER_FIELDS}
}

"Core representation of a GitLab user."
type UserCore {${USER_FIELDS}
}
${connection('UserCore')}

type Project {
  "ID of the project."
  id: ID!
  "Name of the project (without namespace)."
  name: String!
  "Path of the project."
  path: String!
  "Full path of the project."
  fullPath: ID!
  "Full name of the project with its namespace."
  nameWithNamespace: String!
  "Short description of the project."
  description: String
  "Visibility of the project."
  visibility: String
  "Web URL of the project."
  webUrl: String
  "Timestamp of the project creation."
  createdAt: Time
  "Timestamp of the project last activity."
  lastActivityAt: Time
  "Indicates the archived status of the project."
  archived: Boolean
  "Group of the project."
  group: Group
}
${connection('Project')}

type Group {
  "ID of the namespace."
  id: ID!
  "Name of the namespace."
  name: String!
  "Path of the namespace."
  path: String!
  "Full name of the namespace."
  fullName: String!
  "Full path of the namespace."
  fullPath: ID!
  "Description of the namespace."
  description: String
  "Visibility of the namespace."
  visibility: String
  "Web URL of the group."
  webUrl: String!
  "Timestamp of the group creation."
  createdAt: Time
  "Parent group."
  parent: Group
  "Projects within this namespace."
  projects(
    "Include also subgroup projects."
    includeSubgroups: Boolean = false
    "Search project with most similar names or paths."
    search: String${PAGE_ARGUMENTS}
  ): ProjectConnection!
}
${connection('Group')}

"Runner type."
enum CiRunnerType {
  "A runner that is instance type."
  INSTANCE_TYPE
  "A runner that is group type."
  GROUP_TYPE
  "A runner that is project type."
  PROJECT_TYPE
}

enum CiRunnerStatus {
  "Runner that contacted this instance within the last 2 hours."
  ONLINE
  "Runner that has not contacted this instance within the last 2 hours. Will be considered \`STALE\` if offline for more than 1 week."
  OFFLINE
  "Runner that has not contacted this instance within the last 1 week."
  STALE
  "Runner that has never contacted the instance."
  NEVER_CONTACTED
}

enum CiRunnerAccessLevel {
  "A runner that is not protected."
  NOT_PROTECTED
  "A runner that is ref protected."
  REF_PROTECTED
}

"Values for sorting runners."
enum CiRunnerSort {
  "Ordered by contacted_at in ascending order."
  CONTACTED_ASC
  "Ordered by contacted_at in descending order."
  CONTACTED_DESC
  "Ordered by created_at in ascending order."
  CREATED_ASC
  "Ordered by created_at in descending order."
  CREATED_DESC
}

enum CiRunnerUpgradeStatus {
  "Runner version is not valid."
  INVALID
  "Upgrade is not available for the runner."
  NOT_AVAILABLE
  "Upgrade is available for the runner."
  AVAILABLE
  "Upgrade is available and recommended for the runner."
  RECOMMENDED
}

type CiRunner {
  "ID of the runner."
  id: CiRunnerID!
  "Description of the runner."
  description: String
  "Type of the runner."
  runnerType: CiRunnerType!
  "Status of the runner."
  status: CiRunnerStatus!
  "Indicates the runner is paused and not available to run jobs."
  paused: Boolean!
  "Indicates the runner is allowed to receive jobs."
  active: Boolean! @deprecated(reason: "Use \`paused\`. Deprecated in GitLab 14.8.")
  "Indicates the runner is locked."
  locked: Boolean
  "Indicates the runner is able to run untagged jobs."
  runUntagged: Boolean!
  "Tags associated with the runner."
  tagList: [String!]
  "Timestamp of last contact from the runner."
  contactedAt: Time
  "Timestamp of creation of the runner."
  createdAt: Time
  "Maximum timeout (in seconds) for jobs processed by the runner."
  maximumTimeout: Int
  "Access level of the runner."
  accessLevel: CiRunnerAccessLevel!
  "Runner's maintenance notes."
  maintenanceNote: String
  "Availability of upgrades for the runner."
  upgradeStatus: CiRunnerUpgradeStatus
  "Number of projects that the runner is associated with."
  projectCount: Int
  "Admin URL of the runner. Only available for administrators."
  adminUrl: String
  "Groups the runner is associated with. For group runners only."
  groups(${PAGE_ARGUMENTS}
  ): GroupConnection
  "Find projects the runner is associated with. For project runners only."
  projects(${PAGE_ARGUMENTS}
  ): ProjectConnection
}
${connection('CiRunner')}

type Query {
  "Get information about current user."
  currentUser: CurrentUser
  "Find a user."
  user(
    "ID of the User."
    id: UserID
    "Username of the User."
    username: String
  ): UserCore
  "Find users."
  users(
    "List of user Global IDs."
    ids: [ID!]
    "List of usernames."
    usernames: [String!]
    "Sort users by the criteria."
    sort: Sort = created_desc
    "Query to search users by name, username, or primary email."
    search: String
    "Return only admin users."
    admins: Boolean = false${PAGE_ARGUMENTS}
  ): UserCoreConnection
  "Find a project."
  project(
    "Full path of the project. For example, \`gitlab-org/gitlab-foss\`."
    fullPath: ID!
  ): Project
  "Find projects visible to the current user."
  projects(
    "Return only projects that the current user is a member of."
    membership: Boolean
    "Search query, which can be for the project name, a path, or a description."
    search: String
    "Filter projects by IDs."
    ids: [ID!]${PAGE_ARGUMENTS}
  ): ProjectConnection
  "Find a group."
  group(
    "Full path of the project, group, or namespace. For example, \`gitlab-org/gitlab-foss\`."
    fullPath: ID!
  ): Group
  "Find groups visible to the current user."
  groups(
    "Search query for group name or group full path."
    search: String${PAGE_ARGUMENTS}
  ): GroupConnection
  "Find a runner."
  runner(
    "Runner ID."
    id: CiRunnerID!
  ): CiRunner
  "Get all runners in the GitLab instance (project and shared). Access is restricted to users with administrator access."
  runners(
    "Filter runners by \`paused\` (true) or \`active\` (false) status."
    paused: Boolean
    "Filter runners by status."
    status: CiRunnerStatus
    "Filter runners by type."
    type: CiRunnerType
    "Filter by tags associated with the runner (comma-separated or array)."
    tagList: [String!]
    "Filter by full token or partial text in description field."
    search: String
    "Sort order of results."
    sort: CiRunnerSort
    "Filter by upgrade status."
    upgradeStatus: CiRunnerUpgradeStatus${PAGE_ARGUMENTS}
  ): CiRunnerConnection
}

"Autogenerated input type of BulkRunnerDelete"
input BulkRunnerDeleteInput {
  "A unique identifier for the client performing the mutation."
  clientMutationId: String
  "IDs of the runners to delete."
  ids: [CiRunnerID!]
}

"Autogenerated return type of BulkRunnerDelete."
type BulkRunnerDeletePayload {
  "A unique identifier for the client performing the mutation."
  clientMutationId: String
  "Number of records effectively deleted. Only present if operation was performed synchronously."
  deletedCount: Int
  "IDs of records effectively deleted. Only present if operation was performed synchronously."
  deletedIds: [CiRunnerID!]
  "Errors encountered during the mutation."
  errors: [String!]!
}

type Mutation {
  "Deletes runners in bulk: at most 50 a call."
  bulkRunnerDelete(
    "Parameters for BulkRunnerDelete"
    input: BulkRunnerDeleteInput!
  ): BulkRunnerDeletePayload
}
`;
