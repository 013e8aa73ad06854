// A plugin that waits for the service "late".
export const name = 'test-needs-late-service'
export const inject = ['late']
export function apply() {}
