export const name = "dsh-web-search-openai"
export function apply() {}
