package claudesessions

import (
	"bytes"
	"context"
	"errors"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unsafe"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/claude"
	"github.com/tether-dev/tether/agent/filecache"
	"github.com/tether-dev/tether/agent/jsonl"
	"github.com/tidwall/gjson"
)

var _ agent.UsageCounter = (*Reader)(nil)

// usageKind versions what the counter keeps: a change to its rules
// changes it, so kept counts are recounted.
const usageKind = "claude-code/3"

// usageCache is the reader's usage cache, opened on first use beside the
// list's cache.
func (r *Reader) usageCache() *filecache.UsageCache {
	path := r.UsageCachePath
	if path == "" && r.Cache != nil && r.Cache.Path() != "" {
		path = filecache.UsagePath(r.Cache.Path())
	}
	if path == "" {
		return nil
	}
	if r.usage == nil {
		r.usage = filecache.OpenUsage(path, usageKind)
	}
	return r.usage
}

// CountUsage implements agent.UsageCounter: every *.jsonl under
// projects/, at any depth (subagents' transcripts too), in path order,
// as ccusage reads them.
func (r *Reader) CountUsage(ctx context.Context) ([]agent.FileUsage, []agent.Diagnostic, error) {
	root, paths, err := r.usagePaths("", nil)
	if err != nil {
		return nil, nil, err
	}
	return r.countPaths(ctx, root, paths)
}

var _ agent.ArchiveUsageCounter = (*Reader)(nil)

// CountArchivedUsage implements agent.ArchiveUsageCounter: the archive's
// transcripts under dir/projects whose originals (the same path under
// the reader's projects/) are gone, in path order.
func (r *Reader) CountArchivedUsage(ctx context.Context, dir string, live []agent.FileUsage) ([]agent.FileUsage, []agent.Diagnostic, error) {
	root, paths, err := r.usagePaths(dir, live)
	if err != nil {
		return nil, nil, err
	}
	return r.countPaths(ctx, root, paths)
}

// usagePaths are the transcripts CountUsage counts (archiveDir ""), or
// CountArchivedUsage(archiveDir, live), and the projects/ directory they
// are under.
func (r *Reader) usagePaths(archiveDir string, live []agent.FileUsage) (root string, paths []string, err error) {
	liveRoot := claude.ProjectsDir(r.Dir)
	if archiveDir == "" {
		paths, err = filecache.JSONLFiles(liveRoot)
		return liveRoot, paths, err
	}
	root = claude.ProjectsDir(archiveDir)
	if paths, err = filecache.JSONLFiles(root); err != nil {
		return root, nil, err
	}
	// An original among the live files is not stat'ed (a stat per copy
	// was a tenth of a warm report with every transcript archived).
	isLive := make(map[string]bool, len(live))
	for _, f := range live {
		isLive[f.Path] = true
	}
	gone := paths[:0]
	for _, p := range paths {
		if rel, err := filepath.Rel(root, p); err == nil {
			if orig := filepath.Join(liveRoot, rel); !isLive[orig] && originalGone(orig) {
				gone = append(gone, p)
			}
		}
	}
	return root, gone, nil
}

// originalGone: nothing is at the live path (an error other than its
// absence leaves the original there: the copy is not counted).
func originalGone(p string) bool {
	_, err := os.Lstat(p)
	return err != nil && errors.Is(err, fs.ErrNotExist)
}

var _ agent.UsageResumer = (*Reader)(nil)

// UsageVersion implements agent.UsageResumer.
func (r *Reader) UsageVersion() string { return usageKind }

// UsageFiles implements agent.UsageResumer.
func (r *Reader) UsageFiles(_ context.Context, archiveDir string, live []agent.FileUsage) ([]agent.FileUsage, []agent.Diagnostic, error) {
	root, paths, err := r.usagePaths(archiveDir, live)
	if err != nil {
		return nil, nil, err
	}
	files := make([]agent.FileUsage, len(paths))
	for i, p := range paths {
		files[i] = fileUsage(root, p)
	}
	files, diags := filecache.Stamp(files)
	return files, diags, nil
}

// ResumeUsage implements agent.UsageResumer.
func (r *Reader) ResumeUsage(f agent.FileUsage) (agent.FileUsage, bool, error) {
	e, mark, ok, err := filecache.Resume(r.opener(), f.Path, f.Mark, &claudeUsage{})
	if !ok || err != nil {
		return f, false, err
	}
	f.Records, f.Skipped, f.Mark, f.Folded = e.Records, e.Skipped, mark, e.Folded
	return f, true, nil
}

// fileUsage is the transcript at p under root, without records.
func fileUsage(root, p string) agent.FileUsage {
	sess, project := sessionParts(root, p)
	return agent.FileUsage{Harness: agent.Claude, Path: p, Session: sess, Project: project, Billing: agent.BillingPerRequest}
}

// countPaths counts the transcripts at paths, under root (their
// sessions and projects are named from their paths there).
func (r *Reader) countPaths(ctx context.Context, root string, paths []string) ([]agent.FileUsage, []agent.Diagnostic, error) {
	cache := r.usageCache()
	models := &filecache.Models{}
	out := make([]agent.FileUsage, len(paths))
	errs := make([]error, len(paths))
	filecache.CountAll(len(paths), func(i int) {
		if ctx.Err() != nil {
			errs[i] = ctx.Err()
			return
		}
		p := paths[i]
		e, mark, err := filecache.CountUsage(cache, r.opener(), p, &claudeUsage{models: models})
		if err != nil {
			errs[i] = err
			return
		}
		out[i] = fileUsage(root, p)
		out[i].Records, out[i].Skipped, out[i].Mark, out[i].Folded = e.Records, e.Skipped, mark, e.Folded
	})
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	var diags []agent.Diagnostic
	kept := out[:0]
	for i, f := range out {
		if errs[i] != nil {
			diags = append(diags, agent.Diagnostic{Harness: agent.Claude, Path: paths[i], Problem: "usage not counted: " + errs[i].Error()})
			continue
		}
		kept = append(kept, f)
	}
	out = kept
	if err := cache.Save(); err != nil {
		diags = append(diags, agent.Diagnostic{Harness: agent.Claude, Path: cache.Path(), Problem: "usage cache not saved: " + err.Error()})
	}
	return out, diags, nil
}

// sessionParts names a transcript's session and project as ccusage's
// session report does: projects/P/S.jsonl is session S of P; a
// subagent's projects/P/S/subagents/A.jsonl belongs to S.
func sessionParts(root, p string) (session, project string) {
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return strings.TrimSuffix(filepath.Base(p), ".jsonl"), "unknown"
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	project = parts[0]
	switch {
	case len(parts) == 2:
		return strings.TrimSuffix(parts[1], ".jsonl"), project
	case len(parts) >= 4 && parts[len(parts)-2] == "subagents":
		return parts[len(parts)-3], project
	case len(parts) >= 2:
		return parts[len(parts)-2], project
	}
	return strings.TrimSuffix(parts[0], ".jsonl"), "unknown"
}

// claudeUsage counts the usage lines of one transcript by ccusage's
// rules: a line with "usage":{ whose record (an assistant message, or an
// agent's progress record carrying one) parses with every field of its
// type; records naming an invalid version or an empty id are skipped;
// "<synthetic>" records count in no model.
type claudeUsage struct {
	models  *filecache.Models
	recs    []agent.UsageRecord
	skipped int
	pick    linePicker
	spans   [nSlots][]byte
}

// Start implements filecache.LineCounter (a count from the start again
// begins with nothing counted).
func (c *claudeUsage) Start([]byte) { c.recs, c.skipped = nil, 0 }

// Fold implements filecache.Folder: a message's content blocks, a line
// each with the message's usage, are kept as (at most) two records.
func (c *claudeUsage) Fold(recs []agent.UsageRecord) ([]agent.UsageRecord, int, bool) {
	return agent.FoldCopies(recs)
}

func (c *claudeUsage) End() ([]agent.UsageRecord, int, []byte, bool) {
	return c.recs, c.skipped, nil, false
}

var usageMarker = []byte(`"usage":{`)

// serdeDepth is how deep ccusage's parser (serde_json, 128 levels less
// the one it counts first) follows a line's arrays and objects: a line
// nested deeper does not parse there, so it does not count.
const serdeDepth = 127

// Marker implements filecache.Marked: only a line with usageMarker
// counts, found by its '{' (rarer in a transcript than its other bytes).
func (c *claudeUsage) Marker() ([]byte, int) { return usageMarker, len(usageMarker) - 1 }

// Whole implements filecache.Marked: no line counts without the marker.
func (c *claudeUsage) Whole() int64 { return 0 }

// Line counts a line holding usageMarker (countFrom passes no other).
//
// One walk checks the line and picks the record's fields (jsonl.Pick),
// where checking it (jsonl.Valid), walking its members, its message's and
// its usage's, and searching it for a null field went over it five times:
// a cold report of 10,000 generated sessions 4.1 -> 3.5 s, CPU 7.7 -> 6.5 s.
func (c *claudeUsage) Line(b []byte, _ int64) {
	c.pick = linePicker{}
	c.spans = [nSlots][]byte{}
	if !jsonl.Pick(b, serdeDepth, &c.pick, c.spans[:]) {
		c.skipped++ // not JSON: ccusage skips it too
		return
	}
	var rec agent.UsageRecord
	var ok, valid bool
	if c.pick.escaped {
		// A key written with an escape: gjson reads it unescaped, as
		// ccusage's JSON.parse does.
		rec, ok, valid = gjsonRecord(b)
	} else {
		rec, ok, valid = c.pickedRecord(0)
		if !ok {
			// An agent's progress record relays its message under data.message.
			rec, ok, valid = c.pickedRecord(sNested)
		}
	}
	// ccusage skips a line with a null under one of the record's field
	// names anywhere in it; a record whose own fields are sound is kept,
	// marked, for the corrected count.
	if ok && c.pick.null {
		rec.Quirk = true
	}
	if ok && valid {
		if c.models != nil {
			rec.Model = c.models.Intern(rec.Model)
		} else {
			rec.Model = strings.Clone(rec.Model)
		}
		c.recs = append(c.recs, rec)
	} else {
		c.skipped++
	}
}

// gjsonRecord reads a valid line's record through gjson (the way for a
// line with an escaped key). The line's bytes are read in place, not
// copied: nothing read from it outlives the call but the model, interned
// (a copy), and numbers.
func gjsonRecord(b []byte) (rec agent.UsageRecord, ok, valid bool) {
	root := gjson.Parse(unsafe.String(unsafe.SliceData(b), len(b)))
	var f recordFields
	if f.from(root) {
		rec, ok, valid = f.record()
	}
	if !ok {
		var nested recordFields
		if nested.from(root.Get("data.message")) {
			rec, ok, valid = nested.record()
		}
	}
	if ok && hasNullField(b) {
		rec.Quirk = true
	}
	return rec, ok, valid
}

// pickedRecord reads the record whose fields Pick kept from slot base on.
func (c *claudeUsage) pickedRecord(base int) (agent.UsageRecord, bool, bool) {
	var f recordFields
	parse := func(span []byte) gjson.Result {
		if span == nil {
			return gjson.Result{}
		}
		return gjson.Parse(unsafe.String(unsafe.SliceData(span), len(span)))
	}
	for i := range f.top {
		f.top[i] = parse(c.spans[base+i])
	}
	for i := range f.msg {
		f.msg[i] = parse(c.spans[base+sMsg+i])
	}
	for i := range f.usage {
		f.usage[i] = parse(c.spans[base+sUsage+i])
	}
	if f.top[fTimestamp].Type != gjson.String || !f.top[fMessage].IsObject() || !f.msg[0].IsObject() {
		return agent.UsageRecord{}, false, false
	}
	return f.record()
}

// The slots of linePicker: a record's members, its message's and its
// usage's (nTop + 3 + nUsage), for the line's record and for the one
// under its data.message.
const (
	sMsg     = nTop
	sUsage   = sMsg + 3
	sRecord  = sUsage + nUsage
	sData    = sRecord // the line's data
	sDataMsg = sData + 1
	sNested  = sDataMsg + 1
	nSlots   = sNested + sRecord
)

// The levels linePicker picks from.
const (
	lRecord = iota
	lMessage
	lUsage
	lData
	lNested // lNested+lRecord...: the record under data.message
)

// linePicker picks a Claude line's record fields (and its data.message's)
// for jsonl.Pick, and sees whether it has a null field ccusage skips it
// for.
type linePicker struct {
	escaped bool // a picked-from key has an escape
	null    bool // hasNullField's answer
}

// Null implements jsonl.Picker: in a valid line, hasNullField's `:null`
// can only be a member's null value (a quote in a string is escaped, so
// a name it finds there ends with a backslash or holds the ':' or ','
// before the string), and the name it checks is what follows the last
// quote in the member's key (FuzzPickedMatchesGJSON checks it).
func (p *linePicker) Null(key []byte) {
	if !p.null && nullable[string(key[bytes.LastIndexByte(key, '"')+1:])] {
		p.null = true
	}
}

// Member implements jsonl.Picker.
func (p *linePicker) Member(level int, key []byte) (slot, next int) {
	if bytes.IndexByte(key, '\\') >= 0 {
		p.escaped = true
		return -1, -1
	}
	base, lbase := 0, 0 // the record's first slot and level
	if level >= lNested {
		base, lbase = sNested, lNested
	}
	switch level - lbase {
	case lRecord:
		if i, ok := recordKey(string(key)); ok && i == fMessage {
			return base + i, lbase + lMessage
		} else if ok {
			return base + i, -1
		}
		if base == 0 && string(key) == "data" {
			return sData, lData
		}
	case lMessage:
		switch string(key) {
		case "usage":
			return base + sMsg, lbase + lUsage
		case "model":
			return base + sMsg + 1, -1
		case "id":
			return base + sMsg + 2, -1
		}
	case lUsage:
		if i, ok := usageKey(string(key)); ok {
			return base + sUsage + i, -1
		}
	case lData:
		if base == 0 && string(key) == "message" {
			return sDataMsg, lNested
		}
	}
	return -1, -1
}

func recordKey(k string) (int, bool) {
	switch k {
	case "timestamp":
		return fTimestamp, true
	case "version":
		return fVersion, true
	case "sessionId":
		return fSessionID, true
	case "requestId":
		return fRequestID, true
	case "isSidechain":
		return fSidechain, true
	case "costUSD":
		return fCost, true
	case "message":
		return fMessage, true
	}
	return 0, false
}

func usageKey(k string) (int, bool) {
	switch k {
	case "input_tokens":
		return 0, true
	case "output_tokens":
		return 1, true
	case "cache_creation_input_tokens":
		return 2, true
	case "cache_read_input_tokens":
		return 3, true
	case "speed":
		return uSpeed, true
	case "cache_creation":
		return uCacheCreation, true
	}
	return 0, false
}

// nullable are the fields a null in which makes ccusage skip the line.
var nullable = map[string]bool{"id": true, "cwd": true, "model": true, "speed": true, "costUSD": true, "version": true,
	"sessionId": true, "requestId": true, "isApiErrorMessage": true, "cache_read_input_tokens": true, "cache_creation_input_tokens": true}

// hasNullField reports a `"field":null` anywhere in the line for one of
// the fields above (ccusage's check, byte for byte).
func hasNullField(b []byte) bool {
	for off := 0; ; {
		i := bytes.Index(b[off:], []byte(":null"))
		if i < 0 {
			return false
		}
		at := off + i
		end := at - 1
		if end >= 0 && b[end] != '"' {
			for end > 0 && b[end] != '"' {
				end--
			}
		}
		if end >= 0 && b[end] == '"' {
			start := end - 1
			for start > 0 && b[start] != '"' {
				start--
			}
			if start >= 0 && b[start] == '"' && start < end && nullable[string(b[start+1:end])] {
				return true
			}
		}
		off = at + len(":null")
	}
}

// fieldsOf is the values of the keys named in want (the first of each),
// from one pass over v's members, their keys unescaped as ccusage's
// JSON.parse does (the way for the rare line with an escaped key; the
// others are read by jsonl.Pick).
func fieldsOf(v gjson.Result, want map[string]int, into []gjson.Result) {
	v.ForEach(func(k, val gjson.Result) bool {
		if i, ok := want[k.Str]; ok && !into[i].Exists() {
			into[i] = val
		}
		return true
	})
}

// The members a record is read by, by index.
const (
	fTimestamp = iota
	fVersion
	fSessionID
	fRequestID
	fSidechain
	fCost
	fMessage
	nTop
)

var (
	topKeys = map[string]int{"timestamp": fTimestamp, "version": fVersion, "sessionId": fSessionID, "requestId": fRequestID,
		"isSidechain": fSidechain, "costUSD": fCost, "message": fMessage}
	msgKeys   = map[string]int{"usage": 0, "model": 1, "id": 2}
	usageKeys = map[string]int{"input_tokens": 0, "output_tokens": 1, "cache_creation_input_tokens": 2, "cache_read_input_tokens": 3,
		"speed": uSpeed, "cache_creation": uCacheCreation}
)

// The usage members read, by index (after the four token counts).
const (
	uSpeed = 4 + iota
	uCacheCreation
	nUsage
)

// recordFields are the values a usage record is read from: a record's
// members, its message's and its usage's.
type recordFields struct {
	top   [nTop]gjson.Result
	msg   [3]gjson.Result // usage, model, id
	usage [nUsage]gjson.Result
}

// from reads v's fields through gjson: false when it has not the shape
// (an object with a timestamp and a message with usage).
func (f *recordFields) from(v gjson.Result) bool {
	if !v.IsObject() {
		return false
	}
	fieldsOf(v, topKeys, f.top[:])
	if f.top[fTimestamp].Type != gjson.String || !f.top[fMessage].IsObject() {
		return false
	}
	fieldsOf(f.top[fMessage], msgKeys, f.msg[:])
	if !f.msg[0].IsObject() {
		return false
	}
	fieldsOf(f.msg[0], usageKeys, f.usage[:])
	return true
}

// The string fields a record is checked for, by index.
const (
	sfVersion = iota
	sfSession
	sfRequest
	sfModel
	sfID
	nStrFields
)

// record reads the record of fields that have its shape: ok when every
// field is of its type, valid when it counts.
func (f *recordFields) record() (rec agent.UsageRecord, ok, valid bool) {
	u := &f.usage
	var fields [4]int64
	for i := range fields {
		n, good := uintField(u[i], i < 2)
		if !good {
			return rec, false, false
		}
		fields[i] = n
	}
	strs := [nStrFields]gjson.Result{sfVersion: f.top[fVersion], sfSession: f.top[fSessionID], sfRequest: f.top[fRequestID],
		sfModel: f.msg[1], sfID: f.msg[2]}
	for _, s := range strs {
		if s.Exists() && s.Type != gjson.String {
			return rec, false, false
		}
	}
	side, cost := f.top[fSidechain], f.top[fCost]
	if side.Exists() && side.Type != gjson.Null && !side.IsBool() || cost.Exists() && cost.Type != gjson.Number {
		return rec, false, false
	}
	speed := u[uSpeed]
	if speed.Exists() && speed.Str != "standard" && speed.Str != "fast" {
		return rec, false, false
	}
	write, write1h, good := cacheWrites(u[uCacheCreation], fields[2])
	if !good {
		return rec, false, false
	}
	t, err := time.Parse(time.RFC3339Nano, f.top[fTimestamp].Str)
	if err != nil {
		return rec, false, false
	}
	rec = agent.UsageRecord{Time: t.UnixMilli(), Model: strs[sfModel].Str, Sidechain: side.Bool(), Fast: speed.Str == "fast",
		Input: fields[0], Output: fields[1], CacheWrite: write, CacheWrite1h: write1h, CacheRead: fields[3],
		CostUSD: cost.Float(), HasCost: cost.Exists()}
	if rec.Model == "<synthetic>" {
		rec.Model = ""
	}
	if id := strs[sfID]; id.Exists() {
		rec.Key, rec.AltKey = dedupKey(id.Str, strs[sfRequest]), dedupKey(id.Str, gjson.Result{})
	}
	return rec, true, validRecord(&strs)
}

// cacheWrites is the cache-write tokens: a cache_creation breakdown's
// 5-minute and 1-hour parts when there is one, else the flat count.
func cacheWrites(cc gjson.Result, flat int64) (total, hour int64, ok bool) {
	if !cc.Exists() || cc.Type == gjson.Null {
		return flat, 0, true
	}
	if !cc.IsObject() {
		return 0, 0, false
	}
	m, ok1 := uintField(cc.Get("ephemeral_5m_input_tokens"), false)
	h, ok2 := uintField(cc.Get("ephemeral_1h_input_tokens"), false)
	return m + h, h, ok1 && ok2
}

// uintField reads a non-negative integer (absent is 0 unless required).
func uintField(f gjson.Result, required bool) (int64, bool) {
	if !f.Exists() {
		return 0, !required
	}
	if f.Type != gjson.Number || strings.ContainsAny(f.Raw, ".eE-") {
		return 0, false
	}
	return f.Int(), true
}

// validRecord: ccusage skips a record with a version that does not start
// like N.N.N, or an empty session, request, message id or model.
func validRecord(s *[nStrFields]gjson.Result) bool {
	if v := s[sfVersion]; v.Exists() && !semverPrefix(v.Str) {
		return false
	}
	for _, k := range []int{sfSession, sfRequest, sfID, sfModel} {
		if f := s[k]; f.Exists() && f.Str == "" {
			return false
		}
	}
	return true
}

func semverPrefix(v string) bool {
	i := 0
	for part := 0; part < 3; part++ {
		start := i
		for i < len(v) && v[i] >= '0' && v[i] <= '9' {
			i++
		}
		if i == start {
			return false
		}
		if part < 2 {
			if i >= len(v) || v[i] != '.' {
				return false
			}
			i++
		}
	}
	return true
}

// dedupKey hashes a message id with its request id (absent: the id
// alone, the key a sidechain's replay is matched by).
func dedupKey(id string, req gjson.Result) uint64 {
	h := fnv.New64a()
	h.Write([]byte(id))
	if req.Exists() {
		h.Write([]byte{0})
		h.Write([]byte(req.Str))
	} else {
		h.Write([]byte{1})
	}
	if s := h.Sum64(); s != 0 {
		return s
	}
	return 1
}
