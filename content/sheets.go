package content

import (
	"archive/zip"
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/xuri/excelize/v2"
)

// table renders rows as a small pipe table, cutting long cells.
type table struct {
	sb    strings.Builder
	rows  int
	more  bool
	width int
}

func (t *table) sheet(name string) {
	if t.sb.Len() > 0 {
		t.sb.WriteByte('\n')
	}
	fmt.Fprintf(&t.sb, "--- sheet %s ---\n", oneLine(name))
	t.rows, t.more = 0, false
}

// row adds one row; it returns false once the sheet has enough rows.
func (t *table) row(cells []string) bool {
	if t.rows >= maxSheetRows {
		t.more = true
		return false
	}
	for len(cells) > 0 && strings.TrimSpace(cells[len(cells)-1]) == "" {
		cells = cells[:len(cells)-1]
	}
	if len(cells) == 0 {
		return true
	}
	if len(cells) > maxSheetCols {
		cells = append(cells[:maxSheetCols:maxSheetCols], "…")
	}
	t.sb.WriteString("|")
	for _, c := range cells {
		c = strings.TrimSpace(oneLine(c))
		if len(c) > 60 {
			c = cutUTF8(c, 60) + "…"
		}
		t.sb.WriteString(" " + strings.ReplaceAll(c, "|", "/") + " |")
	}
	t.sb.WriteByte('\n')
	t.rows++
	return true
}

func (t *table) end() {
	if t.more {
		fmt.Fprintf(&t.sb, "… more rows not shown (at most %d per sheet)\n", maxSheetRows)
	}
}

// readXLSX shows the first rows of the first sheets.
func readXLSX(r io.ReaderAt, size int64, res *Result) error {
	f, err := excelize.OpenReader(io.NewSectionReader(r, 0, size), excelize.Options{
		UnzipSizeLimit: maxMemberSize * 4, UnzipXMLSizeLimit: maxMemberSize,
	})
	if err != nil {
		return err
	}
	defer f.Close()
	sheets := f.GetSheetList()
	res.add("sheets", strconv.Itoa(len(sheets)))
	var t table
	for i, name := range sheets {
		if i == maxSheets {
			fmt.Fprintf(&t.sb, "\n… %d more sheets not shown\n", len(sheets)-i)
			break
		}
		t.sheet(name)
		rows, err := f.Rows(name)
		if err != nil {
			fmt.Fprintf(&t.sb, "[this sheet could not be read]\n")
			continue
		}
		for rows.Next() {
			cols, err := rows.Columns()
			if err != nil || !t.row(cols) {
				break
			}
		}
		rows.Close()
		t.end()
	}
	res.Text = t.sb.String()
	return nil
}

// odsText reads the sheets of an OpenDocument spreadsheet as tables.
func odsText(f *zip.File) (string, error) {
	rc, err := f.Open()
	if err != nil {
		return "", err
	}
	defer rc.Close()
	d := xml.NewDecoder(io.LimitReader(rc, maxMemberSize))
	d.Strict = false
	var (
		t      table
		sheets int
		cells  []string
		cell   *strings.Builder
		repeat int  // how often the current cell repeats
		skip   bool // past the rows shown for this sheet
	)
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", fmt.Errorf("its XML is damaged: %v", err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			switch e.Name.Local {
			case "table":
				if sheets > 0 {
					t.end()
				}
				sheets++
				if sheets > maxSheets {
					return t.sb.String() + "… more sheets not shown\n", nil
				}
				t.sheet(attr(e, "name"))
				skip = false
			case "table-row":
				cells = cells[:0]
			case "table-cell", "covered-table-cell":
				cell = &strings.Builder{}
				// Repeated empty cells are how ODS pads a row to 16,384
				// columns; never expand more than the table shows.
				repeat = 1
				if n, err := strconv.Atoi(attr(e, "number-columns-repeated")); err == nil && n > 1 {
					repeat = min(n, maxSheetCols+1)
				}
			case "p":
				if cell != nil && cell.Len() > 0 {
					cell.WriteByte(' ')
				}
			}
		case xml.EndElement:
			switch e.Name.Local {
			case "table-cell", "covered-table-cell":
				for i := 0; cell != nil && i < repeat && len(cells) <= maxSheetCols; i++ {
					cells = append(cells, cell.String())
				}
				cell = nil
			case "table-row":
				if !skip && !t.row(cells) {
					skip = true
				}
			}
		case xml.CharData:
			if cell != nil && cell.Len() < 1000 {
				cell.Write(e)
			}
		}
	}
	if sheets > 0 {
		t.end()
	}
	return t.sb.String(), nil
}

func attr(e xml.StartElement, local string) string {
	for _, a := range e.Attr {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}
