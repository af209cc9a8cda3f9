package dev.fenced.internal;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The driver's package structure, as docs/architecture.md draws it: the internal packages form a graph without
 * cycles, and the API package {@code dev.fenced} holds only what applications use.
 */
@AnalyzeClasses(
        packages = "dev.fenced",
        importOptions = {ImportOption.DoNotIncludeTests.class, ArchitectureTest.NotTestSupport.class})
class ArchitectureTest {

    /**
     * The driver's classes only: {@code dev.fenced.it..} is fenced's test code (the leak-check module is on the
     * driver's test class path), not part of the driver's structure.
     */
    static final class NotTestSupport implements ImportOption {
        @Override
        public boolean includes(Location location) {
            return !location.contains("/dev/fenced/it/");
        }
    }

    /** A cycle makes two packages one unit in all but name: neither can be understood or changed alone. */
    @ArchTest
    static final ArchRule internalPackagesHaveNoCycles =
            slices().matching("dev.fenced.internal.(**)").should().beFreeOfCycles();

    /** Public types outside the API packages (dev.fenced and the SPI, dev.fenced.spi) say they are internal by where they live. */
    @ArchTest
    static final ArchRule publicTypesLiveInTheApiOrInternalPackages = classes()
            .that()
            .arePublic()
            .should()
            .resideInAnyPackage("dev.fenced", "dev.fenced.spi", "dev.fenced.internal..");

    /** The thread-local store is loaded from the bootstrap class path by the agent: it may use java.base only. */
    @ArchTest
    static final ArchRule theBootstrapStoreUsesJavaBaseOnly = classes()
            .that()
            .resideInAPackage("dev.fenced.internal.bootstrap")
            .should()
            .onlyDependOnClassesThat()
            .resideInAnyPackage("java..", "dev.fenced.internal.bootstrap");
}
