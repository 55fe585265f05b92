package compare

import (
	"bytes"
	"encoding/json"
	"io"
	"path/filepath"

	"github.com/omnik-dev/omnik/htmlreport"
)

// sideOf is one run of the comparison page: a result file's distributions from the
// collector its records fed, a summary export's drawn through its percentiles.
func sideOf(in *Input, c *htmlreport.Collector) htmlreport.Side {
	s := htmlreport.Side{Title: filepath.Base(in.Path), Path: in.Path}
	if in.Run != nil {
		s.Run, _ = json.Marshal(in.Run)
		if in.Run.Script != "" {
			s.Title = filepath.Base(in.Run.Script)
		}
	}
	if in.Format == ResultFile {
		s.Dists = c.Overlaid()
	} else {
		s.Dists, s.Coarse = htmlreport.CoarseDistributions(in.Metrics), true
	}
	return s
}

// WriteHTML writes the comparison page: the rows and gates as --json writes them, and
// the runs' distributions overlaid.
func (c *Comparison) WriteHTML(w io.Writer, gates []GateResult, base, next htmlreport.Side) error {
	var data bytes.Buffer
	if err := c.WriteJSON(&data, gates); err != nil {
		return err
	}
	page := htmlreport.Comparison{Base: base, New: next, Comparison: data.Bytes()}
	return page.WriteHTML(w)
}
