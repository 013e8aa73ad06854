// The host's services (dsh-harness) for the tests of plugins: a plugin never
// depends on the host (tests/architecture.spec.ts), so its tests reach the
// services through the workspace root, which declares dsh-harness. Any host
// that implements the contract would serve as well; ours is at hand.
export * as credentials from 'dsh-harness/credentials'
export * as network from 'dsh-harness/network'
export * as session from 'dsh-harness/session'
export * as tools from 'dsh-harness/tools'
