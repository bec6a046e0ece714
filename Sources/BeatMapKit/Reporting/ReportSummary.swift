// SPDX-License-Identifier: GPL-3.0-or-later

/// The one-line summary shared by the text-like formats.
enum Summary {
    static func line(_ report: ValidationReport) -> String {
        let files = report.files.count
        let errors = report.errorCount
        let warnings = report.warningCount
        let missing = report.missingAudioCount
        let audio =
            missing == 0
            ? "" : "; \(missing) map\(missing == 1 ? "'s" : "s'") audio not found (audio checks skipped)"
        let fixes = report.fixCount
        let unwritten = report.files.filter { $0.fixFailure != nil }.count
        let fixed =
            (fixes == 0 ? "" : "; \(fixes) fix\(fixes == 1 ? "" : "es") made first")
            + (unwritten == 0 ? "" : "; \(unwritten) file\(unwritten == 1 ? "'s" : "s'") fixes not written")
        return
            "Validated \(files) file\(files == 1 ? "" : "s"): \(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")\(audio)\(fixed)."
    }
}
