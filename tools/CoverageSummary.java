import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.util.HashMap;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.jacoco.core.analysis.Analyzer;
import org.jacoco.core.analysis.CoverageBuilder;
import org.jacoco.core.analysis.IBundleCoverage;
import org.jacoco.core.analysis.ICounter;
import org.jacoco.core.data.ExecutionData;
import org.jacoco.core.data.ExecutionDataStore;
import org.jacoco.core.internal.data.CRC64;
import org.jacoco.core.tools.ExecFileLoader;

/**
 * Prints the driver's line and branch coverage from the unit tests, from the integration tests, and both together,
 * into the build's output. Run by integration-tests/pom.xml as a single-file program, with JaCoCo's nodeps jar on
 * the class path:
 *
 * <pre>java -cp org.jacoco.cli-nodeps.jar CoverageSummary.java CLASSES_DIR SHADED_JAR UNIT_EXEC IT_EXEC</pre>
 *
 * <p>Why not JaCoCo's report goals: the integration tests run the shaded driver jar, whose classes that use
 * JSqlParser differ from target/classes in their constant pool (the relocated package names). JaCoCo keys its data
 * by a checksum of the class bytes, so those classes would count as never run. The bytecode is otherwise the same
 * (same probes), so for the combined figure the integration tests' data is keyed to target/classes by class name.
 */
public final class CoverageSummary {

    /** The driver's own classes in its shaded jar; the relocated JSqlParser is not ours. */
    private static final String OWN = "dev/fenced/";
    private static final String RELOCATED = "dev/fenced/internal/jsqlparser/";

    public static void main(String[] args) throws IOException {
        File classes = new File(args[0]);
        File shadedJar = new File(args[1]);
        File unitExec = new File(args[2]);
        File itExec = new File(args[3]);

        ExecutionDataStore unit = load(unitExec);
        ExecutionDataStore it = load(itExec);
        Map<String, Long> unitIds = classIds(classes);

        print("unit tests", analyzeDir(unit, classes), unitExec);
        print("integration tests", analyzeShaded(it, shadedJar), itExec);

        ExecutionDataStore both = new ExecutionDataStore();
        unit.getContents().forEach(both::visitClassExecution);
        int unmatched = 0;
        for (ExecutionData data : it.getContents()) {
            Long id = unitIds.get(data.getName());
            if (id == null) {
                continue; // not a driver class
            }
            ExecutionData rekeyed = new ExecutionData(id, data.getName(), data.getProbes().clone());
            ExecutionData known = both.get(id);
            if (known != null && known.getProbes().length != rekeyed.getProbes().length) {
                unmatched++;
                continue;
            }
            both.visitClassExecution(rekeyed);
        }
        print("combined", analyzeDir(both, classes), null);
        if (unmatched > 0) {
            System.out.println("[coverage] " + unmatched + " classes' integration data did not match target/classes"
                    + " and is left out of the combined figure");
        }
    }

    private static ExecutionDataStore load(File exec) throws IOException {
        ExecFileLoader loader = new ExecFileLoader();
        if (exec.isFile()) {
            loader.load(exec);
        }
        return loader.getExecutionDataStore();
    }

    private static Map<String, Long> classIds(File dir) throws IOException {
        Map<String, Long> ids = new HashMap<>();
        try (var files = java.nio.file.Files.walk(dir.toPath())) {
            for (var path : (Iterable<java.nio.file.Path>) files::iterator) {
                String name = dir.toPath().relativize(path).toString().replace(File.separatorChar, '/');
                if (name.endsWith(".class") && !name.endsWith("module-info.class")) {
                    byte[] bytes = java.nio.file.Files.readAllBytes(path);
                    ids.put(name.substring(0, name.length() - ".class".length()), CRC64.classId(bytes));
                }
            }
        }
        return ids;
    }

    private static IBundleCoverage analyzeDir(ExecutionDataStore data, File classes) throws IOException {
        CoverageBuilder builder = new CoverageBuilder();
        new Analyzer(data, builder).analyzeAll(classes);
        return builder.getBundle("fenced-driver");
    }

    private static IBundleCoverage analyzeShaded(ExecutionDataStore data, File jar) throws IOException {
        CoverageBuilder builder = new CoverageBuilder();
        Analyzer analyzer = new Analyzer(data, builder);
        try (JarFile file = new JarFile(jar)) {
            for (JarEntry entry : (Iterable<JarEntry>) file.stream()::iterator) {
                String name = entry.getName();
                if (name.startsWith(OWN) && !name.startsWith(RELOCATED) && name.endsWith(".class")) {
                    try (InputStream in = file.getInputStream(entry)) {
                        analyzer.analyzeClass(in, name);
                    }
                }
            }
        }
        return builder.getBundle("fenced-driver");
    }

    private static void print(String what, IBundleCoverage bundle, File exec) {
        if (exec != null && !exec.isFile()) {
            System.out.printf("[coverage] fenced-driver, %-17s: no data (%s)%n", what, exec);
            return;
        }
        System.out.printf("[coverage] fenced-driver, %-17s: lines %s, branches %s%n", what,
                percent(bundle.getLineCounter()), percent(bundle.getBranchCounter()));
    }

    private static String percent(ICounter counter) {
        return String.format("%5.1f%% (%d of %d)", 100 * counter.getCoveredRatio(), counter.getCoveredCount(),
                counter.getTotalCount());
    }
}
