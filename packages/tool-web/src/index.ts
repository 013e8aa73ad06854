export const name = "dsh-tool-web"
export function apply() {}
