// A plugin whose apply never finishes.
export const name = 'test-never-starts'
export function apply() {
  return new Promise(() => {})
}
