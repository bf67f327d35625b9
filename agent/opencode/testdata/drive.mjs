// drive.mjs PLUGIN EVENTS: feeds one OpenCode process's worth of recorded
// plugin events (the probe's {"event", "stdin"} lines) to tether's plugin
// as OpenCode would, then exits as OpenCode does after a run.
import { readFileSync } from "node:fs"
import { pathToFileURL } from "node:url"

const [plugin, events] = process.argv.slice(2)
const mod = await import(pathToFileURL(plugin).href)
let hooks
for (const line of readFileSync(events, "utf8").split("\n")) {
  if (!line.trim()) continue
  const { event, stdin, cwd } = JSON.parse(line)
  // The sample kept the first two plugin.init events only.
  if (!hooks && event !== "plugin.init") hooks = await mod.TetherHooks({ directory: cwd })
  if (event === "plugin.init") {
    hooks = await mod.TetherHooks({ directory: stdin.directory, worktree: stdin.worktree })
  } else if (event.startsWith("event:")) {
    await hooks.event({ event: stdin })
  } else if (hooks[event]) {
    await hooks[event](stdin.input, stdin.output)
  }
  // Events come apart in time in OpenCode; the plugin's queue runs one
  // hook at a time.
  await new Promise((r) => setTimeout(r, 5))
}
await new Promise((r) => setTimeout(r, 300))
process.exit(0)
