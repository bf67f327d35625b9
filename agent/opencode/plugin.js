// tether:plugin — written by 'tether hooks install --harness opencode'; 'tether hooks uninstall --harness opencode' removes it (edits are lost on reinstall).
const COMMAND = __TETHER_COMMAND__
// It hands OpenCode's session events to tether's hook command, one JSON
// argument per event: ids, the directory, the model, token counts and
// error names. Never a message's text. It imports only node: builtins
// (which Bun has), so it needs nothing OpenCode installs in this
// directory. The hook runs detached and is never awaited: an event
// returns at once; the hooks run one after another (the next starts when
// the last has exited, or after WAIT_MS), and whatever is still queued
// when OpenCode exits is handed over in one last detached run.
import { spawn } from "node:child_process"

const WAIT_MS = 3000
const MAX_QUEUE = 256
const queue = []
let running = false

function start(payloads) {
  try {
    const child = spawn(COMMAND[0], [...COMMAND.slice(1), ...payloads.map((p) => JSON.stringify(p))],
      { detached: true, stdio: "ignore" })
    child.unref()
    return child
  } catch {
    return undefined
  }
}

function runOne(payload) {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, WAIT_MS)
    if (timer.unref) timer.unref()
    const done = () => { clearTimeout(timer); resolve() }
    const child = start([payload])
    if (!child) return done()
    child.once("exit", done)
    child.once("error", done)
  })
}

async function drain() {
  if (running) return
  running = true
  try {
    while (queue.length) await runOne(queue.shift())
  } finally {
    running = false
  }
}

function send(payload) {
  if (queue.length < MAX_QUEUE) queue.push(payload)
  drain()
}

// instances are the plugin's instances, one per directory OpenCode
// serves; each knows the sessions it saw.
const instances = new Set()

function instance(dir) {
  // sessions: id -> { parent, cwd, tokens, model, provider, trigger }
  const sessions = new Map()
  // limits: "provider/model" -> the model's context limit (chat.params)
  const limits = new Map()
  const inst = { dir, sessions, limits }

  const emit = (id, event, opencodeEvent, fields) =>
    send({ hook_event_name: event, session_id: id, cwd: sessions.get(id)?.cwd || dir, opencode_event: opencodeEvent, ...fields })

  // active notes a session this instance works on: one it did not create
  // is resumed.
  inst.active = (id, opencodeEvent) => {
    if (!id || sessions.has(id)) return sessions.get(id)
    const s = { cwd: dir }
    sessions.set(id, s)
    emit(id, "SessionStart", opencodeEvent, { source: "resume" })
    return s
  }

  inst.onEvent = (event) => {
    const p = event.properties || {}
    switch (event.type) {
      case "session.created": {
        const info = p.info || {}
        if (!info.id || sessions.has(info.id)) return
        if (info.parentID) {
          sessions.set(info.id, { parent: info.parentID })
          emit(info.parentID, "SubagentStart", event.type, { agent_id: info.id, agent_type: "subagent" })
          return
        }
        sessions.set(info.id, { cwd: info.directory || dir })
        emit(info.id, "SessionStart", event.type, { source: "startup" })
        return
      }
      case "session.status":
        if (p.status?.type === "busy") inst.active(p.sessionID, event.type)
        return
      case "message.updated": {
        const info = p.info || {}
        const s = sessions.get(info.sessionID)
        if (!s || s.parent || info.role !== "assistant" || info.summary) return
        const tokens = contextTokens(info.tokens)
        if (tokens > 0) Object.assign(s, { tokens, model: info.modelID, provider: info.providerID })
        return
      }
      case "message.part.updated": {
        // A compaction's request (the TUI's /compact, the server's
        // summarize) may be the first this process hears of a session.
        const part = p.part || {}
        if (part.type !== "compaction") return
        const s = inst.active(part.sessionID, event.type)
        if (s) s.trigger = part.auto ? "auto" : "manual"
        return
      }
      case "session.idle": {
        const s = sessions.get(p.sessionID)
        if (!s) return
        if (s.parent) return emit(s.parent, "SubagentStop", event.type, { agent_id: p.sessionID, agent_type: "subagent" })
        emit(p.sessionID, "Stop", event.type, usage(s))
        return
      }
      case "session.compacted": {
        const s = sessions.get(p.sessionID)
        if (!s || s.parent) return
        s.tokens = 0
        emit(p.sessionID, "PostCompact", event.type, { trigger: s.trigger || "auto" })
        return
      }
      case "session.error": {
        const s = sessions.get(p.sessionID)
        if (!s || s.parent) return
        const name = String(p.error?.name || "UnknownError").slice(0, 100)
        if (name === "MessageAbortedError") return emit(p.sessionID, "Interrupt", event.type, {})
        emit(p.sessionID, "StopFailure", event.type, { error: name })
        return
      }
    }
  }

  // usage is the context in use: the last assistant message's tokens
  // and the model's limit (none when no message had tokens yet).
  const usage = (s) => {
    if (!s.tokens) return {}
    const fields = { tokens: s.tokens, model: s.model }
    const limit = limits.get(s.provider + "/" + s.model)
    if (limit) fields.context_window = limit
    return fields
  }

  // A compaction OpenCode starts on its own, past its threshold, comes
  // before the turn's idle: the PreCompact says the tokens before it.
  inst.compacting = (id) => {
    const s = inst.active(id, "experimental.session.compacting")
    if (s && !s.parent) emit(id, "PreCompact", "experimental.session.compacting", { trigger: s.trigger || "auto", ...usage(s) })
  }
  return inst
}

function contextTokens(t) {
  if (!t) return 0
  if (typeof t.total === "number") return t.total
  return (t.input || 0) + (t.output || 0) + (t.reasoning || 0) + (t.cache?.read || 0) + (t.cache?.write || 0)
}

// At exit what is still queued, and the end of every session seen, go to
// one last detached run. (OpenCode's TUI ends its server without an exit
// event there: its sessions get no SessionEnd.)
process.once("exit", () => {
  const last = queue.splice(0)
  for (const inst of instances) {
    for (const [id, s] of inst.sessions) {
      if (!s.parent) last.push({ hook_event_name: "SessionEnd", session_id: id, cwd: s.cwd || inst.dir, opencode_event: "exit", reason: "exit" })
    }
  }
  if (last.length) start(last)
})

export const TetherHooks = async (ctx) => {
  const inst = instance(ctx?.directory || process.cwd())
  instances.add(inst)
  return {
    event: async ({ event }) => {
      try { inst.onEvent(event) } catch {}
    },
    "chat.message": async (input) => {
      try { inst.active(input?.sessionID, "chat.message") } catch {}
    },
    "chat.params": async (input) => {
      try {
        const m = input?.model
        if (m?.limit?.context > 0) inst.limits.set(m.providerID + "/" + m.id, m.limit.context)
      } catch {}
    },
    "experimental.session.compacting": async (input) => {
      try { inst.compacting(input?.sessionID) } catch {}
    },
  }
}
