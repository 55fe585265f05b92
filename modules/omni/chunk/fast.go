package chunk

import "encoding/json"

// The fast path decodes the shapes nearly every chunk has (text, audio and image deltas,
// usage, non-streamed messages, speech deltas) in one pass without reflection. It takes
// only what it can decode exactly as decodeReflect would (a kept string with escapes is
// handed to encoding/json alone); anything else (numbers that are not plain ints, keys
// encoding/json would fold onto a field, duplicate keys, errors, images responses) goes
// to decodeReflect, which starts over. A metrics object is handed to encoding/json alone.

// Field names per struct: a key that is not one of them exactly but folds onto one is
// decoded into it by encoding/json, so the fast path leaves it to encoding/json.
var (
	chunkNames   = []string{"id", "object", "type", "modality", "choices", "usage", "metrics", "error", "detail", "message", "code", "audio", "delta", "data", "stage_durations", "peak_memory_mb"}
	choiceNames  = []string{"index", "delta", "message", "finish_reason"}
	messageNames = []string{"role", "content", "audio"}
	audioNames   = []string{"id", "data", "transcript"}
	partNames    = []string{"type", "text", "image_url", "stage_durations", "peak_memory_mb"}
	usageNames   = []string{"prompt_tokens", "completion_tokens", "total_tokens", "input_tokens", "output_tokens", "peak_memory_mb"}
)

// fast decodes b into c and reports true, or reports false with c in any state.
func (c *Chunk) fast(b []byte) bool {
	prev := [...]string{c.ID, c.Object, c.Type, c.Modality}
	c.reset()
	s := scanner{b: b}
	if !s.eat('{') {
		return false
	}
	var seen uint16
	for n := 0; ; n++ {
		k, ok := s.member(n == 0)
		if !ok {
			break
		}
		var bit uint16
		switch string(k) {
		case "id":
			bit, c.ID = 1<<0, s.str(prev[0])
		case "object":
			bit, c.Object = 1<<1, s.str(prev[1])
		case "type":
			bit, c.Type = 1<<2, s.str(prev[2])
		case "modality":
			bit, c.Modality = 1<<3, s.str(prev[3])
		case "choices":
			bit = 1 << 4
			c.choices(&s)
		case "usage":
			bit = 1 << 5
			c.Usage = s.usage(&c.usages)
		case "audio":
			bit, c.Audio = 1<<6, s.text()
		case "delta":
			bit, c.Delta = 1<<7, s.text()
		case "peak_memory_mb":
			bit = 1 << 8
			at := s.i
			s.skip(0)
			_ = c.PeakMemoryMB.UnmarshalJSON(b[at:s.i]) // never fails
		case "metrics":
			// vLLM-Omni sends it on every chunk with return_stage_metrics: the object goes
			// to encoding/json on its own bytes, as the whole document's decode would.
			bit = 1 << 9
			c.Metrics = s.metrics()
		// Null leaves these pointers and slices nil; a value needs their decoders.
		case "error":
			bit = 1 << 10
			s.null()
		case "detail":
			bit = 1 << 11
			s.null()
		case "data":
			bit = 1 << 12
			s.null()
		default:
			if folds(k, chunkNames) {
				return false
			}
			s.skip(0)
		}
		if seen&bit != 0 {
			return false
		}
		seen |= bit
	}
	s.ws()
	// A large string that cutLarge lifts out but restore cannot place sends the old path
	// back to plain encoding/json, which rejects control characters the fast path did
	// not look for.
	return !s.bad && s.i == len(b) && !(s.unchecked && s.strict)
}

// choices decodes the choices array into c.Choices, reusing its backing array.
func (c *Chunk) choices(s *scanner) {
	switch s.peek() {
	case 'n':
		s.null()
		c.Choices = nil // encoding/json sets a slice to nil on null
		return
	case '[':
		s.i++
	default:
		s.bad = true
		return
	}
	if c.Choices == nil {
		c.Choices = []Choice{} // [] is an empty slice, not nil
	}
	for n := 0; ; n++ {
		if !s.element(n == 0) {
			return
		}
		// reset cleared the elements up to cap, as encoding/json reuses them as they are.
		if len(c.Choices) < cap(c.Choices) {
			c.Choices = c.Choices[:len(c.Choices)+1]
		} else {
			c.Choices = append(c.Choices, Choice{})
		}
		if s.peek() == 'n' {
			s.null() // a null element stays a zero Choice
		} else {
			s.choice(&c.Choices[len(c.Choices)-1])
		}
		if s.bad {
			return
		}
	}
}

func (s *scanner) choice(ch *Choice) {
	if !s.eat('{') {
		s.bad = true
		return
	}
	var seen uint8
	for n := 0; ; n++ {
		k, ok := s.member(n == 0)
		if !ok {
			return
		}
		var bit uint8
		switch string(k) {
		case "index":
			bit, ch.Index = 1<<0, s.int()
		case "delta":
			bit = 1 << 1
			s.message(&ch.Delta)
		case "message":
			bit = 1 << 2
			s.message(&ch.Message)
		case "finish_reason":
			bit, ch.FinishReason = 1<<3, s.str("")
		default:
			if folds(k, choiceNames) {
				s.bad = true
				return
			}
			s.skip(0)
		}
		if seen&bit != 0 {
			s.bad = true
		}
		seen |= bit
	}
}

// metrics reads the metrics object (nil for null), decoded by encoding/json.
func (s *scanner) metrics() *Metrics {
	if s.peek() == 'n' {
		s.null()
		return nil
	}
	at := s.i
	s.skip(0)
	if s.bad {
		return nil
	}
	m := new(Metrics)
	if json.Unmarshal(s.b[at:s.i], m) != nil {
		s.bad = true // the slow path reports it
		return nil
	}
	return m
}

func (s *scanner) message(m *Message) {
	if s.peek() == 'n' {
		s.null() // null leaves a struct as it is
		return
	}
	if !s.eat('{') {
		s.bad = true
		return
	}
	var seen uint8
	for n := 0; ; n++ {
		k, ok := s.member(n == 0)
		if !ok {
			return
		}
		var bit uint8
		switch string(k) {
		case "role":
			bit, m.Role = 1<<0, s.str("")
		case "content":
			bit = 1 << 1
			if s.peek() == '[' {
				m.Content.Parts = s.parts()
			} else {
				m.Content.Text = s.text()
			}
		case "audio":
			bit, m.Audio = 1<<2, s.audio()
		default:
			if folds(k, messageNames) {
				s.bad = true
				return
			}
			s.skip(0)
		}
		if seen&bit != 0 {
			s.bad = true
		}
		seen |= bit
	}
}

// audio decodes OpenAI's audio object or null.
func (s *scanner) audio() *Audio {
	if s.peek() == 'n' {
		s.null()
		return nil
	}
	if !s.eat('{') {
		s.bad = true
		return nil
	}
	a := new(Audio)
	var seen uint8
	for n := 0; ; n++ {
		k, ok := s.member(n == 0)
		if !ok {
			return a
		}
		var bit uint8
		switch string(k) {
		case "id":
			bit, a.ID = 1<<0, s.str("")
		case "data":
			bit, a.Data = 1<<1, s.text()
		case "transcript":
			bit, a.Transcript = 1<<2, s.text()
		default:
			if folds(k, audioNames) {
				s.bad = true
				return a
			}
			s.skip(0)
		}
		if seen&bit != 0 {
			s.bad = true
		}
		seen |= bit
	}
}

// parts decodes a list content (vLLM-Omni images).
func (s *scanner) parts() []Part {
	s.i++
	parts := []Part{} // [] is an empty slice, not nil
	for n := 0; s.element(n == 0); n++ {
		parts = append(parts, Part{})
		if s.peek() == 'n' {
			s.null() // a null element stays a zero Part
		} else {
			s.part(&parts[len(parts)-1])
		}
	}
	return parts
}

func (s *scanner) part(p *Part) {
	if !s.eat('{') {
		s.bad = true
		return
	}
	var seen uint8
	for n := 0; ; n++ {
		k, ok := s.member(n == 0)
		if !ok {
			return
		}
		var bit uint8
		switch string(k) {
		case "type":
			bit, p.Type = 1<<0, s.str("")
		case "text":
			bit, p.Text = 1<<1, s.text()
		case "image_url":
			bit = 1 << 2
			s.imageURL(&p.ImageURL.URL)
		case "stage_durations":
			bit = 1 << 3
			at := s.i
			s.skip(0)
			if !s.bad {
				// Its own decoder on the same bytes, as encoding/json would call it.
				_ = p.StageDurations.UnmarshalJSON(s.b[at:s.i]) // never fails
			}
		case "peak_memory_mb":
			bit = 1 << 4
			at := s.i
			s.skip(0)
			_ = p.PeakMemoryMB.UnmarshalJSON(s.b[at:s.i]) // never fails
		default:
			if folds(k, partNames) {
				s.bad = true
				return
			}
			s.skip(0)
		}
		if seen&bit != 0 {
			s.bad = true
		}
		seen |= bit
	}
}

// imageURL decodes a part's image_url object or null into its url.
func (s *scanner) imageURL(url *String) {
	if s.peek() == 'n' {
		s.null()
		return
	}
	if !s.eat('{') {
		s.bad = true
		return
	}
	seen := false
	for n := 0; ; n++ {
		k, ok := s.member(n == 0)
		if !ok {
			return
		}
		switch {
		case string(k) == "url":
			if seen {
				s.bad = true
			}
			seen, *url = true, s.text()
		case folds(k, []string{"url"}):
			s.bad = true
			return
		default:
			s.skip(0)
		}
	}
}

// usage decodes a usage object or null, the object into a Usage from batch.
func (s *scanner) usage(batch *usageBatch) *Usage {
	if s.peek() == 'n' {
		s.null()
		return nil
	}
	if !s.eat('{') {
		s.bad = true
		return nil
	}
	u := batch.next()
	var seen uint8
	for n := 0; ; n++ {
		k, ok := s.member(n == 0)
		if !ok {
			return u
		}
		var bit uint8
		switch string(k) {
		case "prompt_tokens":
			bit, u.PromptTokens = 1<<0, s.int()
		case "completion_tokens":
			bit, u.CompletionTokens = 1<<1, s.int()
		case "total_tokens":
			bit, u.TotalTokens = 1<<2, s.int()
		case "input_tokens":
			bit, u.InputTokens = 1<<3, s.int()
		case "output_tokens":
			bit, u.OutputTokens = 1<<4, s.int()
		case "peak_memory_mb":
			bit = 1 << 5
			at := s.i
			s.skip(0)
			_ = u.PeakMemoryMB.UnmarshalJSON(s.b[at:s.i]) // never fails
		default:
			if folds(k, usageNames) {
				s.bad = true
				return u
			}
			s.skip(0)
		}
		if seen&bit != 0 {
			s.bad = true
		}
		seen |= bit
	}
}

// usageBatch hands out Usage values a batch at a time: each Decode still gets its own
// (a caller may keep the pointer), but a stream's usage chunks share a few allocations.
type usageBatch struct {
	free []Usage
	n    int
}

func (ub *usageBatch) next() *Usage {
	if len(ub.free) == 0 {
		ub.n = min(max(2*ub.n, 1), 32)
		ub.free = make([]Usage, ub.n)
	}
	u := &ub.free[0]
	ub.free = ub.free[1:]
	return u
}

// folds reports whether an ASCII key matches one of names case-insensitively.
func folds(k []byte, names []string) bool {
	for _, n := range names {
		if len(n) == len(k) && asciiFold(k, n) {
			return true
		}
	}
	return false
}

func asciiFold(k []byte, n string) bool {
	for i := range len(k) {
		a, b := k[i], n[i]
		if 'A' <= a && a <= 'Z' {
			a += 'a' - 'A'
		}
		if a != b { // names are lower case
			return false
		}
	}
	return true
}

// intern returns v as a string, without allocating when it repeats prev (a stream's id)
// or is a value servers send on every chunk.
func intern(v []byte, prev string) string {
	if string(v) == prev {
		return prev
	}
	switch string(v) {
	case "chat.completion.chunk":
		return "chat.completion.chunk"
	case "chat.completion":
		return "chat.completion"
	case "image.edit.chunk":
		return "image.edit.chunk"
	case "text":
		return "text"
	case "audio":
		return "audio"
	case "image":
		return "image"
	case "assistant":
		return "assistant"
	case "stop":
		return "stop"
	case "length":
		return "length"
	case "speech.audio.delta":
		return "speech.audio.delta"
	case "ar_delta":
		return "ar_delta"
	}
	return string(v)
}
