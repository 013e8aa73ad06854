// A plugin that provides the service "late" from a timer, work Cordis does not track.
export const name = 'test-late-service'
export function apply(ctx) {
  const timer = setTimeout(() => ctx.set('late', { arrived: true }), 30)
  ctx.effect(() => () => clearTimeout(timer))
}
