// A plugin that waits on a service no row provides.
export const name = 'test-waits-forever'
export const inject = ['never-provided']
export function apply() {}
