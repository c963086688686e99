package content

import (
	"testing"

	"github.com/xuri/excelize/v2"
)

func makeXLSX(t testing.TB) []byte {
	f := excelize.NewFile()
	defer f.Close()
	f.SetSheetRow("Sheet1", "A1", &[]any{"Name", "Amount"})
	f.SetSheetRow("Sheet1", "A2", &[]any{"Rent", 900})
	b, err := f.WriteToBuffer()
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
