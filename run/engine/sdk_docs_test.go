package engine

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/agentlab/agentlab/plan"
	sdk "github.com/agentlab/agentlab/presets/ptc"
	"github.com/agentlab/agentlab/run/sources"
)

// TestSDKDocExampleIsWhatIsPrinted: the SDK example in docs/ptc.md is
// what code mode shows a model for traceable-weekly's db_query tool, its
// result type the real shape of a query result (not unknown).
func TestSDKDocExampleIsWhatIsPrinted(t *testing.T) {
	db, err := sources.Load(context.Background(), "../../examples/traceable-weekly",
		map[string]plan.Source{"sales": {Kind: "csv", Path: "data/sales.csv", MaskColumns: []string{"customer"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var infos []sdk.ToolInfo
	for _, ti := range db.Tools() {
		infos = append(infos, sdk.ToolInfo{Name: ti.Name, Description: ti.Description, Args: ti.Schema, Output: dbResultSchema()})
	}
	text := sdk.RenderSDK(infos, sdk.LangTypeScript)
	i := strings.Index(text, "export interface")
	if i < 0 {
		t.Fatalf("no interface in:\n%s", text)
	}
	example := strings.TrimSpace(text[i:])
	if strings.Contains(example, "Promise<unknown>") {
		t.Errorf("the result type is unknown:\n%s", example)
	}
	doc, err := os.ReadFile("../../docs/ptc.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), "```ts\n"+example+"\n```") {
		t.Errorf("docs/ptc.md does not show what agentlab prints:\n```ts\n%s\n```", example)
	}
}
