// Package claude owns Claude Code's files under its config dir
// ($CLAUDE_CONFIG_DIR or ~/.claude): the projects/ layout and project
// directory naming, the transcript record and content-block types, the
// keys tether reads and trim edits, the predicates over records (human
// prompt, context tokens, API error, compact boundary, sidechain), the
// bounded transcript readers, and the sessions/<pid>.json live-session
// files. Nothing outside agent/ spells these keys.
package claude

// Record types.
const (
	TypeUser        = "user"
	TypeAssistant   = "assistant"
	TypeSystem      = "system"
	TypeAttachment  = "attachment"
	TypeProgress    = "progress"
	TypeSummary     = "summary"
	TypeCustomTitle = "custom-title"
	TypeAITitle     = "ai-title"
	TypeLastPrompt  = "last-prompt"
)

// SubtypeCompactBoundary marks the system record where context restarts.
const SubtypeCompactBoundary = "compact_boundary"

// SyntheticModel is the model of the assistant records Claude Code writes
// itself (API errors).
const SyntheticModel = "<synthetic>"

// Record keys, top level unless noted.
const (
	KeyType              = "type"
	KeySubtype           = "subtype"
	KeyUUID              = "uuid"
	KeyParentUUID        = "parentUuid"
	KeyLogicalParentUUID = "logicalParentUuid"
	KeyLeafUUID          = "leafUuid"
	KeySessionID         = "sessionId"
	KeyTimestamp         = "timestamp"
	KeyVersion           = "version"
	KeyCwd               = "cwd"
	KeyIsSidechain       = "isSidechain"
	KeyIsMeta            = "isMeta"
	KeyIsCompactSummary  = "isCompactSummary"
	KeyIsAPIErrorMessage = "isApiErrorMessage"
	KeyMessage           = "message"
	KeyToolUseResult     = "toolUseResult"
	KeyAttachment        = "attachment"
	KeyRendered          = "rendered"
	KeyPromptSource      = "promptSource"
	KeyCompactMetadata   = "compactMetadata"
	KeyError             = "error"
	// KeyAPIError is 2.1's name for an API-error record's cause
	// ("tool_history_mismatch", …).
	KeyAPIError = "apiError"
)

// Content block types.
const (
	BlockText             = "text"
	BlockImage            = "image"
	BlockDocument         = "document"
	BlockToolResult       = "tool_result"
	BlockToolUse          = "tool_use"
	BlockThinking         = "thinking"
	BlockRedactedThinking = "redacted_thinking"
)

// ChainTypes are the record types linked by uuid/parentUuid.
var ChainTypes = map[string]bool{TypeUser: true, TypeAssistant: true, TypeSystem: true, TypeAttachment: true, TypeProgress: true}

// NonChainTypes are the record types without a uuid chain seen so far.
// Unknown ones exist too (the format grows); this list only names them.
var NonChainTypes = map[string]bool{
	"queue-operation": true, TypeSummary: true, TypeCustomTitle: true, TypeAITitle: true, TypeLastPrompt: true,
	"agent-name": true, "tag": true, "mode": true, "permission-mode": true, "file-history-snapshot": true,
	"atis-latch": true, "api-request-shape": true, "api-request-blob": true, "api-request": true,
	"tools-used": true, "cost-state": true, "pr-link": true, "content-replacement": true,
}

// EnvelopeKeys are present on every chain record.
var EnvelopeKeys = []string{KeyUUID, KeyParentUUID, KeySessionID, KeyTimestamp, KeyIsSidechain, KeyVersion}

// UserBlocks and AssistantBlocks are the content blocks seen in user and
// assistant messages.
var (
	UserBlocks      = map[string]bool{BlockText: true, BlockImage: true, BlockDocument: true, BlockToolResult: true}
	AssistantBlocks = map[string]bool{BlockText: true, BlockThinking: true, BlockRedactedThinking: true, BlockToolUse: true}
)
