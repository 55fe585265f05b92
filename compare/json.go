package compare

import (
	"encoding/json"
	"io"
	"math"
)

// JSONSchema versions the JSON form of a comparison (omnik compare --json).
const JSONSchema = "omnik.compare/v1"

// WriteJSON writes the comparison and the gates' verdicts as indented JSON, for CI. A
// change in percent from a zero BASE is the string "+Inf" or "-Inf".
func (c *Comparison) WriteJSON(w io.Writer, gates []GateResult) error {
	type input struct {
		Path   string `json:"path"`
		Format string `json:"format"`
	}
	type row struct {
		Key        string   `json:"key"`
		Group      string   `json:"group"`
		Unit       Unit     `json:"unit,omitempty"`
		Better     Better   `json:"better"`
		Base       *float64 `json:"base"`
		New        *float64 `json:"new"`
		Change     *float64 `json:"change"`
		ChangePct  *number  `json:"change_pct"`
		Verdict    Verdict  `json:"verdict"`
		ErrorBound float64  `json:"error_bound,omitempty"`
	}
	type gate struct {
		Expr     string  `json:"expr"`
		Key      string  `json:"key"`
		Crossed  bool    `json:"crossed"`
		NoData   bool    `json:"no_data,omitempty"`
		Observed *number `json:"observed"`
		Limit    float64 `json:"limit"`
	}
	out := struct {
		Schema   string    `json:"schema"`
		Base     input     `json:"base"`
		New      input     `json:"new"`
		Warnings []Warning `json:"warnings"`
		Rows     []row     `json:"rows"`
		Gates    []gate    `json:"gates"`
	}{Schema: JSONSchema, Base: input{c.Base.Path, c.Base.Format.String()}, New: input{c.New.Path, c.New.Format.String()},
		Warnings: append([]Warning{}, c.Warnings...), Rows: []row{}, Gates: []gate{}}
	for _, r := range c.Rows {
		jr := row{Key: r.Key, Group: r.Group.String(), Unit: r.Unit, Better: r.Better, Base: r.Base, New: r.New, Verdict: r.Verdict(),
			ErrorBound: r.ErrorBound}
		if abs, rel, ok := r.Change(); ok {
			pct := number(rel)
			jr.Change, jr.ChangePct = &abs, &pct
		}
		out.Rows = append(out.Rows, jr)
	}
	for _, g := range gates {
		jg := gate{Expr: g.Gate.Source, Key: g.Gate.Key, Crossed: g.Crossed, NoData: g.NoData, Limit: g.Limit}
		if !g.NoData {
			v := number(g.Observed)
			jg.Observed = &v
		}
		out.Gates = append(out.Gates, jg)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

// number is a float64 that JSON can hold when infinite.
type number float64

// MarshalJSON writes ±Inf as "+Inf" or "-Inf".
func (n number) MarshalJSON() ([]byte, error) {
	if math.IsInf(float64(n), 0) {
		return []byte(`"` + signed(float64(n))[:1] + `Inf"`), nil
	}
	return json.Marshal(float64(n))
}
