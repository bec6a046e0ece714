// SPDX-License-Identifier: GPL-3.0-or-later

public import Foundation

extension Validator {
    /// The rules whose findings' fixes ``fix(paths:keepsBackup:)`` makes, in the order it makes them:
    /// the metric level first (it changes which beats the map holds), then the half-beat shift, then
    /// the small offset (both measured on the beats the level leaves), then the bar lines (placed on the
    /// beats the others leave).
    public static let fixOrder = [
        AudioMetricLevelRule.description.id, AudioOffbeatRule.description.id, AudioMisalignedRule.description.id,
        BarPhaseRule.description.id,
    ]

    /// Validates files and folders as ``validate(paths:standardInput:)`` does, first making in each map
    /// file the fixes its findings name (``Finding/fix``), one rule at a time in ``fixOrder``.
    ///
    /// A fix is kept only when the map checked again no longer has that rule's finding and no rule it
    /// passed finds an error (``FileReport/errors(ofRulesPassedBy:)``); otherwise it is undone and a note
    /// says so. A file with fixes kept is written once, through
    /// ``MapFileSaver`` (validated, its previous content kept as `NAME.bak` when `keepsBackup`, replaced
    /// atomically). Each report is of the file as it is left; it lists the fixes made
    /// (``FileReport/fixes``), or why they could not be written (``FileReport/fixFailure``). Each file's
    /// audio is inspected once however often its map is checked.
    public func fix(paths: [String], keepsBackup: Bool = true) async throws(ValidationError) -> ValidationReport {
        let files = try MapFileFinder.find(paths)
        if files.contains(where: \.isStandardInput) { throw .cannotFixStandardInput }
        // A file named twice (or also found in a folder given) is fixed once, by its first mention;
        // the others are checked after, as it was left.
        var firstMention: [String: Int] = [:]
        for (index, file) in files.enumerated() where firstMention[Self.identity(of: file.url)] == nil {
            firstMention[Self.identity(of: file.url)] = index
        }
        let fixing = firstMention.values.sorted()
        let fixed = await Concurrently.map(count: fixing.count, width: Concurrently.availableCores) { position in
            let file = files[fixing[position]]
            return self.fixFile(at: file.url, path: file.path, keepsBackup: keepsBackup)
        }
        var reports: [FileReport?] = Array(repeating: nil, count: files.count)
        for (position, index) in fixing.enumerated() { reports[index] = fixed[position] }
        return ValidationReport(
            files: files.indices.map { index in
                reports[index] ?? validateFile(at: files[index].url, path: files[index].path)
            })
    }

    /// What making the fixes of `map`'s findings leaves: the map, the fixes kept, notes on those undone,
    /// and the report of the map as left.
    public struct Fixing: Sendable {
        /// The map with the fixes kept.
        public var map: BeatMap
        /// The fixes kept, in the order they were made.
        public var fixes: [MadeFix]
        /// Why fixes were undone, one note each.
        public var notes: [String]
        /// The findings of the map as left.
        public var report: FileReport
    }

    /// Makes the fixes of `map`'s findings in memory, one rule at a time in ``fixOrder``, each kept only
    /// when the map checked again no longer has that rule's finding and no rule it passed finds an
    /// error. `report` is the map's report, `mapURL` locates its audio, and `audio`, when given, stands
    /// for what the audio file is (as in ``validate(bytes:path:mapURL:audio:)``).
    public func fixing(
        _ map: BeatMap, report: FileReport, path: String, mapURL: URL? = nil, audio: AudioFacts? = nil
    ) -> Fixing {
        var map = map
        var report = report
        var fixes: [MadeFix] = []
        var notes: [String] = []
        for ruleID in Self.fixOrder {
            let found = report.findings.filter { $0.ruleID == ruleID }
            guard let edit = found.lazy.compactMap(\.fix).first else { continue }
            let edited: EditedMap
            do { edited = try BeatMapEditor.apply(edit, to: map) } catch {
                notes.append("not fixed: [\(ruleID)] \(edit.summary): \(error.localizedDescription)")
                continue
            }
            guard edited.map != map, let text = try? BeatMapCodec.encode(edited.map) else { continue }
            let checked = validate(bytes: Array(text.utf8), path: path, mapURL: mapURL, audio: audio)
            let remaining = checked.findings.filter { $0.ruleID == ruleID }.count
            let broken = checked.errors(ofRulesPassedBy: report)
            guard remaining < found.count, broken.isEmpty else {
                let why =
                    remaining >= found.count
                    ? "the map checked again still has the finding"
                    : "it breaks \(Set(broken.map(\.ruleID)).sorted().joined(separator: ", "))"
                notes.append("not fixed: [\(ruleID)] \(edit.summary) was tried and undone: \(why)")
                continue
            }
            map = edited.map
            report = checked
            fixes.append(MadeFix(ruleID: ruleID, edit: edit, changes: edited.changes))
        }
        return Fixing(map: map, fixes: fixes, notes: notes, report: report)
    }

    /// The file `url` names, however it is spelled (symbolic links resolved).
    private static func identity(of url: URL) -> String { url.standardizedFileURL.resolvingSymlinksInPath().path }

    /// Makes the fixes the findings of the map file at `url` (shown as `path`) name, writes the map when
    /// any is kept, and returns the report of the file as it is left (see ``fix(paths:keepsBackup:)``).
    public func fixFile(at url: URL, path: String, keepsBackup: Bool = true) -> FileReport {
        let checker = Validator(
            configuration: configuration, audioInspector: audioInspector.map(CachedAudioInspector.init))
        let bytes: [UInt8]
        do { bytes = try BeatMapCodec.readBytes(of: url) } catch { return checker.validateFile(at: url, path: path) }
        let first = checker.validate(bytes: bytes, path: path, mapURL: url)
        guard first.findings.contains(where: { $0.fix != nil }),
            case .map(let original, _) = BeatMapCodec.decode(bytes)
        else { return first }
        let outcome = checker.fixing(original, report: first, path: path, mapURL: url)
        var report = outcome.report
        let (map, fixes, notes) = (outcome.map, outcome.fixes, outcome.notes)
        report.notes += notes
        guard !fixes.isEmpty else { return report }
        var saver = MapFileSaver(mapURL: url, original: original, validator: checker, keepsBackup: keepsBackup)
        do {
            let outcome = try saver.save(map)
            report.fixes = fixes
            // The backup's path as the user wrote the map's: the same suffix after it.
            report.backupPath = outcome.backupPath.map { path + $0.dropFirst(url.path.count) }
            return report
        } catch {
            var unchanged = first
            unchanged.notes += notes
            unchanged.fixFailure = error.localizedDescription
            return unchanged
        }
    }
}
