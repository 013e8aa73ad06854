// A plugin whose apply throws.
export const name = 'test-fails-on-start'
export function apply() {
  throw new Error('this plugin always fails to start')
}
