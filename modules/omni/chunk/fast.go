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
	urlNames     = []string{"url"}
)

// fast decodes b into c and reports true, or reports false with c in any state.
func (c *Chunk) fast(b []byte) bool {
	prev := [...]string{c.ID, c.Object, c.Type, c.Modality}
	c.reset()
	s := scanner{b: b}
	if !s.eat('{') {
		return false
	}
	s.members(chunkNames, func(k []byte) uint32 {
		switch string(k) {
		case "id":
			c.ID = s.str(prev[0])
			return 1 << 0
		case "object":
			c.Object = s.str(prev[1])
			return 1 << 1
		case "type":
			c.Type = s.str(prev[2])
			return 1 << 2
		case "modality":
			c.Modality = s.str(prev[3])
			return 1 << 3
		case "choices":
			c.choices(&s)
			return 1 << 4
		case "usage":
			c.Usage = s.usage(&c.usages)
			return 1 << 5
		case "audio":
			c.Audio = s.text()
			return 1 << 6
		case "delta":
			c.Delta = s.text()
			return 1 << 7
		case "peak_memory_mb":
			_ = c.PeakMemoryMB.UnmarshalJSON(s.raw()) // never fails
			return 1 << 8
		case "metrics":
			// vLLM-Omni sends it on every chunk with return_stage_metrics: the object goes
			// to encoding/json on its own bytes, as the whole document's decode would.
			c.Metrics = s.metrics()
			return 1 << 9
		// Null leaves these pointers and slices nil; a value needs their decoders.
		case "error":
			s.null()
			return 1 << 10
		case "detail":
			s.null()
			return 1 << 11
		case "data":
			s.null()
			return 1 << 12
		}
		return 0
	})
	s.ws()
	// A large string that cutLarge lifts out but restore cannot place sends the old path
	// back to plain encoding/json, which rejects control characters the fast path did
	// not look for.
	return !s.bad && s.i == len(b) && !(s.unchecked && s.strict)
}

// members reads an object's members up to its '}': field decodes a member it knows and
// returns its bit (0 for a name it does not know, which is skipped). A name that folds
// onto one of names (encoding/json would match it) or a field seen twice makes the input
// bad, as anything the fast path cannot decode exactly does.
func (s *scanner) members(names []string, field func(k []byte) uint32) {
	var seen uint32
	for n := 0; !s.bad; n++ {
		k, ok := s.member(n == 0)
		if !ok {
			return
		}
		bit := field(k)
		switch {
		case bit == 0 && folds(k, names):
			s.bad = true
		case bit == 0:
			s.skip(0)
		case seen&bit != 0:
			s.bad = true
		}
		seen |= bit
	}
}

// object reads null (false) or the '{' that opens an object (true); anything else
// makes the input bad.
func (s *scanner) object() bool {
	if s.peek() == 'n' {
		s.null()
		return false
	}
	if !s.eat('{') {
		s.bad = true
		return false
	}
	return true
}

// raw skips a value and returns its bytes, for a type's own UnmarshalJSON.
func (s *scanner) raw() []byte {
	at := s.i
	s.skip(0)
	return s.b[at:s.i]
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
	s.members(choiceNames, func(k []byte) uint32 {
		switch string(k) {
		case "index":
			ch.Index = s.int()
			return 1 << 0
		case "delta":
			s.message(&ch.Delta)
			return 1 << 1
		case "message":
			s.message(&ch.Message)
			return 1 << 2
		case "finish_reason":
			ch.FinishReason = s.str("")
			return 1 << 3
		}
		return 0
	})
}

// metrics reads the metrics object (nil for null), decoded by encoding/json.
func (s *scanner) metrics() *Metrics {
	if s.peek() == 'n' {
		s.null()
		return nil
	}
	v := s.raw()
	if s.bad {
		return nil
	}
	m := new(Metrics)
	if json.Unmarshal(v, m) != nil {
		s.bad = true // the slow path reports it
		return nil
	}
	return m
}

func (s *scanner) message(m *Message) {
	if !s.object() {
		return // null leaves a struct as it is
	}
	s.members(messageNames, func(k []byte) uint32 {
		switch string(k) {
		case "role":
			m.Role = s.str("")
			return 1 << 0
		case "content":
			if s.peek() == '[' {
				m.Content.Parts = s.parts()
			} else {
				m.Content.Text = s.text()
			}
			return 1 << 1
		case "audio":
			m.Audio = s.audio()
			return 1 << 2
		}
		return 0
	})
}

// audio decodes OpenAI's audio object or null.
func (s *scanner) audio() *Audio {
	if !s.object() {
		return nil
	}
	a := new(Audio)
	s.members(audioNames, func(k []byte) uint32 {
		switch string(k) {
		case "id":
			a.ID = s.str("")
			return 1 << 0
		case "data":
			a.Data = s.text()
			return 1 << 1
		case "transcript":
			a.Transcript = s.text()
			return 1 << 2
		}
		return 0
	})
	return a
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
	s.members(partNames, func(k []byte) uint32 {
		switch string(k) {
		case "type":
			p.Type = s.str("")
			return 1 << 0
		case "text":
			p.Text = s.text()
			return 1 << 1
		case "image_url":
			s.imageURL(&p.ImageURL.URL)
			return 1 << 2
		case "stage_durations":
			if v := s.raw(); !s.bad {
				// Its own decoder on the same bytes, as encoding/json would call it.
				_ = p.StageDurations.UnmarshalJSON(v) // never fails
			}
			return 1 << 3
		case "peak_memory_mb":
			_ = p.PeakMemoryMB.UnmarshalJSON(s.raw()) // never fails
			return 1 << 4
		}
		return 0
	})
}

// imageURL decodes a part's image_url object or null into its url.
func (s *scanner) imageURL(url *String) {
	if !s.object() {
		return
	}
	s.members(urlNames, func(k []byte) uint32 {
		if string(k) != "url" {
			return 0
		}
		*url = s.text()
		return 1
	})
}

// usage decodes a usage object or null, the object into a Usage from batch.
func (s *scanner) usage(batch *usageBatch) *Usage {
	if !s.object() {
		return nil
	}
	u := batch.next()
	s.members(usageNames, func(k []byte) uint32 {
		switch string(k) {
		case "prompt_tokens":
			u.PromptTokens = s.int()
			return 1 << 0
		case "completion_tokens":
			u.CompletionTokens = s.int()
			return 1 << 1
		case "total_tokens":
			u.TotalTokens = s.int()
			return 1 << 2
		case "input_tokens":
			u.InputTokens = s.int()
			return 1 << 3
		case "output_tokens":
			u.OutputTokens = s.int()
			return 1 << 4
		case "peak_memory_mb":
			_ = u.PeakMemoryMB.UnmarshalJSON(s.raw()) // never fails
			return 1 << 5
		}
		return 0
	})
	return u
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
